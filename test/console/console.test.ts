import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { verifyWebhookSignature } from '../../clients/typescript/src/webhooks.js';
import { buildConsole } from '../../scripts/build-console.js';
import { seedAnalyses } from '../helpers/many-analyses.js';
import { sql } from '../../src/db/sql.js';
import { RecognitionEngines } from '../../src/modules/recognition/engines/index.js';
import { createServices } from '../../src/services.js';
import { request, startTestApi, type TestApi } from '../helpers/api.js';
import { cliJson } from '../helpers/cli.js';
import { createTestOrg, type TestOrg } from '../helpers/fixtures.js';
import { startImageHost, type ImageHost } from '../helpers/image-host.js';
import { startReceiver } from '../helpers/receiver.js';
import { linkIn, startSmtpServer } from '../helpers/smtp.js';
import { waitFor } from '../helpers/wait.js';
import { startTestWorkers, uniquePrefix } from '../helpers/worker.js';

const root = resolve(import.meta.dirname, '../..');
/** Debian's chromium (`apt-get install chromium`): the binary behind its wrapper script. */
const executablePath = ['/usr/lib/chromium/chromium', '/usr/bin/chromium'].find((p) => existsSync(p));
/** Screenshots of every page at both widths, for people to look at (git-ignored). */
const SHOTS = join(root, '.data', 'console-screenshots');
const shelves = join(root, 'test', 'fixtures', 'synthetic-shelves');
const catalogue = JSON.parse(readFileSync(join(shelves, 'catalogue.json'), 'utf8'));
const PASSWORD = 'a long owner passphrase';
const NEW_PASSWORD = 'the owner changed it here';

/** What a page did wrong: errors, refusals by its policy, requests to anywhere but the service. */
type Watch = { problems: string[]; outside: string[] };

describe('the console (/console) in headless Chromium, against the real API, worker, Temporal and PostgreSQL', () => {
  let api: TestApi;
  let org: TestOrg;
  let host: ImageHost;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let stopWorkers: () => Promise<void>;
  const engines = new RecognitionEngines();
  let browser: Browser;
  let owner: BrowserContext;
  let page: Page;
  let watch: Watch;
  let cliEnv: Record<string, string>;
  let consoleDir: string;
  /** Shared between the steps, in order: what the owner made. */
  const made: {
    key?: string;
    analysisId?: string;
    callbackSecret?: string;
    webhookId?: string;
    secret?: string;
    rotated?: string;
  } = {};

  /** A browser context that records what goes wrong and refuses every request to anywhere else. */
  /** `origin`: the service it may reach (the test's API unless said). */
  async function watchedContext(origin = api.baseUrl): Promise<{ context: BrowserContext; watch: Watch }> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const w: Watch = { problems: [], outside: [] };
    await context.route('**/*', (route) => {
      const url = route.request().url();
      if (url.startsWith(origin) || url.startsWith('data:') || url.startsWith('blob:')) return route.continue();
      w.outside.push(url);
      return route.abort();
    });
    await context.addInitScript(() => {
      document.addEventListener('securitypolicyviolation', (e) =>
        console.error(`CSP violation: ${e.effectiveDirective} refused ${e.blockedURI || '(inline)'}`),
      );
    });
    context.on('page', (p) => {
      p.on('pageerror', (err) => w.problems.push(`pageerror: ${err.message}`));
      p.on('console', (msg) => {
        // The browser logs the API's deliberate refusals (a 401 while signed out, the 403 and the 422
        // of a wrong current password the test provokes) as failed loads: those are answers, not faults of the page.
        if (
          msg.type() === 'error' &&
          !/Failed to load resource: the server responded with a status of (401|403|404|422)/.test(msg.text())
        )
          w.problems.push(`console ${msg.type()}: ${msg.text()}`);
        if (/Content Security Policy/i.test(msg.text())) w.problems.push(`csp: ${msg.text()}`);
      });
    });
    return { context, watch: w };
  }

  /** Every visible form control is named by a label (or aria-label): what a screen reader reads out. */
  async function assertLabelled(p: Page) {
    const unlabelled = await p.evaluate(() =>
      [...document.querySelectorAll('input, select, textarea')]
        .filter((el) => (el as HTMLElement).offsetParent !== null && (el as HTMLInputElement).type !== 'hidden')
        .filter(
          (el) =>
            !(el.id && document.querySelector(`label[for="${el.id}"]`)) &&
            !el.closest('label') &&
            !el.getAttribute('aria-label'),
        )
        .map((el) => el.outerHTML.slice(0, 80)),
    );
    assert.deepEqual(unlabelled, [], 'every form control has a label');
  }

  async function shoot(p: Page, name: string) {
    for (const width of [1280, 390]) {
      await p.setViewportSize({ width, height: width === 390 ? 844 : 900 });
      await p.waitForTimeout(150);
      // Nothing runs off the side at 390 px: no horizontal scrolling of the page itself.
      const overflow = await p.evaluate(
        () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
      );
      assert.ok(overflow <= 1, `${name} at ${width} px scrolls sideways by ${overflow} px`);
      await p.screenshot({ path: join(SHOTS, `${name}-${width}.png`), fullPage: true });
    }
    await p.setViewportSize({ width: 1280, height: 900 });
  }

  /** A new owner of `orgId`, signed in on `p` through a sign-in link (as the CLI's), on the console's first page. */
  async function ownerSignedIn(on: TestApi, orgId: string, p: Page, email: string) {
    const services = createServices(on.runtime.orm.em.fork(), { config: on.runtime.config });
    const member = await services.members.add(orgId, { name: 'Another Owner', email, role: 'owner' });
    const { token } = await services.sessions.createSignInLink(orgId, member.id);
    await p.goto(`${on.baseUrl}/console/set-password#token=${token}`);
    await p.getByLabel('New password').fill('another owner passphrase');
    await p.getByLabel('The same password again').fill('another owner passphrase');
    await p.getByRole('button', { name: 'Save and sign in' }).click();
    await heading(p, 'Analyses');
  }

  /** On an invitation link's page: a name and a password, and in. */
  async function acceptInvitation(p: Page, name: string, password: string) {
    await p.getByLabel('Your name').fill(name);
    await p.getByLabel('New password').fill(password);
    await p.getByLabel('The same password again').fill(password);
    await p.getByRole('button', { name: 'Join and sign in' }).click();
  }

  const heading = (p: Page, text: string | RegExp) => p.getByRole('heading', { level: 1, name: text }).waitFor();
  /** A page of the console's navigation (pages' own text may link to it too). */
  const nav = (p: Page, name: string) =>
    p.getByRole('navigation', { name: 'Console' }).getByRole('link', { name }).click();

  before(async () => {
    assert.ok(executablePath, 'chromium is installed');
    mkdirSync(SHOTS, { recursive: true });
    consoleDir = join(root, '.data', 'test', `console-${process.pid}`);
    await buildConsole(consoleDir);
    api = await startTestApi({
      TASK_QUEUE_PREFIX: uniquePrefix('console'),
      CONSOLE_DIR: consoleDir,
      TEMPORAL_UI_URL: 'http://127.0.0.1:8233',
    });
    // The real local recognizer: the boxes drawn are the ones it found.
    stopWorkers = (await startTestWorkers(api.runtime, await engines.create('local'))).stop;
    org = await createTestOrg(api.runtime, { credits: 20, name: 'Console Grocers' });
    const bulk = await api.request('POST', '/inventory/bulk', {
      key: org.keys.write,
      body: {
        items: catalogue.map((c: Record<string, unknown>) => ({
          sku: c.sku,
          upc: c.upc,
          brand: c.brand,
          name: c.name,
          category: c.category,
          expectedPrice: c.expectedPrice,
          currency: c.currency,
        })),
      },
    });
    assert.equal(bulk.status, 200, bulk.text);
    host = await startImageHost({
      '/shelf-02.jpg': { type: 'image/jpeg', body: readFileSync(join(shelves, 'shelf-02.jpg')) },
      // Held until the test has pointed the callback at its receiver.
      '/held-shelf-02.jpg': { type: 'image/jpeg', body: readFileSync(join(shelves, 'shelf-02.jpg')), held: true },
    });
    receiver = await startReceiver();
    cliEnv = { DATABASE_URL: process.env.DATABASE_URL!, PUBLIC_URL: api.baseUrl };
    browser = await chromium.launch({
      executablePath,
      args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-sync'],
    });
    ({ context: owner, watch } = await watchedContext());
    page = await owner.newPage();
  });
  after(async () => {
    await browser?.close();
    await stopWorkers?.();
    await receiver?.close();
    await host?.close();
    await api?.close();
    await engines.close();
  });

  it('serves the console under a strict content security policy; signed out, it asks for a sign-in', async () => {
    const res = await page.goto(`${api.baseUrl}/console`);
    assert.equal(res?.status(), 200);
    const headers = await res!.allHeaders();
    const csp = headers['content-security-policy'] ?? '';
    assert.match(csp, /(^|; )default-src 'none'(;|$)/);
    assert.match(csp, /(^|; )script-src 'self'(;|$)/);
    assert.match(csp, /(^|; )connect-src 'self'(;|$)/);
    assert.doesNotMatch(csp, /https?:|\*|unsafe/, `nothing from elsewhere, nothing inline: ${csp}`);
    assert.equal(headers['x-frame-options'], 'DENY');
    await heading(page, 'Sign in to the Shelf console');
    await assertLabelled(page);
    await shoot(page, 'sign-in');
    // A wrong password says so and what to do.
    await page.getByLabel('E-mail address').fill('nobody@console.example');
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('The e-mail address or the password is wrong.').waitFor();
  });

  it("the first owner signs in with the CLI's one-time link", async () => {
    const services = createServices(api.runtime.orm.em.fork(), { config: api.runtime.config });
    await services.members.add(org.id, { name: 'Olive Owner', email: 'olive@console.example', role: 'owner' });
    const { link } = await cliJson(cliEnv, 'member:login-link', '--org', org.id);
    await page.goto(link);
    await heading(page, 'Choose your password');
    await page.getByText('olive@console.example').first().waitFor();
    // The token leaves the address bar at once.
    assert.equal(new URL(page.url()).hash, '');
    await assertLabelled(page);
    await shoot(page, 'set-password');
    await page.getByLabel('New password').fill(PASSWORD);
    await page.getByLabel('The same password again').fill(PASSWORD);
    await page.getByRole('button', { name: 'Save and sign in' }).click();
    await heading(page, 'Analyses');
    const cookie = (await owner.cookies()).find((c) => c.name === 'shelf_session')!;
    assert.ok(cookie, 'the session cookie is set');
    assert.equal(cookie.httpOnly, true, 'no script can read it');
    assert.equal(cookie.sameSite, 'Strict');
    assert.equal(await page.evaluate(() => document.cookie), '', 'invisible to the page');
    await page.getByText('No analyses yet').waitFor();
    await shoot(page, 'analyses-empty');
  });

  it('creates an API key, shown once, and the key works with curl', async () => {
    await nav(page, 'API keys');
    await heading(page, 'API keys');
    await page.getByLabel('Name').fill('console test key');
    await page.getByLabel('Role').selectOption('write');
    await page.getByRole('button', { name: 'Create key' }).click();
    const secret = (await page.getByTestId('secret-value').innerText()).trim();
    assert.match(secret, /^svc_live_[0-9a-f]{64}$/);
    made.key = secret;
    // curl itself, with nothing but the key.
    const curled = await new Promise<string>((done, fail) =>
      execFile(
        'curl',
        ['-sS', '-w', '\n%{http_code}', '-H', `Authorization: Bearer ${secret}`, `${api.baseUrl}/api/v1/usage`],
        (err, stdout) => (err ? fail(err) : done(stdout)),
      ),
    );
    const [body, code] = [curled.slice(0, curled.lastIndexOf('\n')), curled.slice(curled.lastIndexOf('\n') + 1)];
    assert.equal(code, '200', curled);
    assert.ok(JSON.parse(body).data.credits, curled);
    await page.getByRole('cell', { name: /console test key/ }).waitFor();
    await assertLabelled(page);
    await shoot(page, 'api-keys');
  });

  it('an analysis submitted through the API shows its photo with every detected product boxed', async () => {
    const submitted = await request(api.baseUrl, 'POST', '/analyses', {
      key: made.key,
      body: {
        imageUrl: host.url('/held-shelf-02.jpg'),
        externalId: 'visit-42',
        metadata: { aisle: '4' },
        callbackUrl: receiver.url.replace('http:', 'https:'),
      },
    });
    assert.equal(submitted.status, 202, submitted.text);
    made.analysisId = submitted.body.data.id;
    made.callbackSecret = submitted.body.data.callbackSecret;
    // The test receiver speaks plain HTTP: the HTTPS check is the API's, the row points at the receiver.
    await sql(api.runtime.orm.em.fork(), `update analyses set callback_url = ? where id = ?`, [
      receiver.url,
      made.analysisId,
    ]);
    host.release('/held-shelf-02.jpg');
    // One that fails too (its photo is not there): a failed row, an alert, a red bar in the chart.
    await request(api.baseUrl, 'POST', '/analyses', { key: made.key, body: { imageUrl: host.url('/missing.jpg') } });
    await nav(page, 'Analyses');
    await heading(page, 'Analyses');
    await page.getByRole('cell', { name: 'visit-42' }).waitFor();
    await page.getByLabel('External id').fill('visit-42');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL(/externalId=visit-42/);
    await waitFor('the filtered list', async () => (await page.locator('table.list tbody tr').count()) === 1, 10_000);
    // The page asks for the photo while the analysis is processing ("not there yet") and that answer is
    // held until the page shows the analysis completed: it must still ask again (CI once met this race).
    // And the preview is made just after the result is out (D190), so the page's first question after the
    // settling can still find none (CI met this too): the test takes the preview away while the page shows
    // "completed" and puts it back once the page has been answered "not there" again.
    let release!: () => void;
    const shown = new Promise<void>((resolve) => (release = resolve));
    let held = 0;
    let askedAfter = 0;
    let answeredAfter!: () => void;
    const notThereAfter = new Promise<void>((resolve) => (answeredAfter = resolve));
    await page.route('**/api/v1/analyses/*/image', async (route) => {
      // route.fetch reuses kept-alive sockets, and one the API is closing as it is reused answers
      // ECONNRESET (CI met it once, an error thrown in the handler after every test had passed): a GET,
      // so it is asked again.
      const response = await route.fetch().catch(() => route.fetch());
      if (response.status() === 404 && held === 0) {
        held++;
        await shown;
      } else if (response.status() === 404 && askedAfter++ === 0) answeredAfter();
      await route.fulfill({ response });
    });
    await page.locator('table.list tbody tr a').first().click();
    await heading(page, 'Analysis visit-42');
    const analysis = await waitFor(
      'the analysis to complete',
      async () => {
        const a = await request(api.baseUrl, 'GET', `/analyses/${made.analysisId}`, { key: made.key });
        return a.body.data.status !== 'processing' && a.body.data;
      },
      120_000,
      500,
    );
    assert.equal(analysis.status, 'completed');
    const located = analysis.products.filter((p: { box: unknown }) => p.box).length;
    assert.ok(located >= 10, `products located: ${located} of ${analysis.products.length}`);
    // The page follows the analysis to its end, then draws the photo (a blob: URL) and a box per product.
    await page.locator('.lead .badge').getByText('completed').waitFor({ timeout: 30_000 });
    const em = api.runtime.orm.em.fork();
    await waitFor(
      'the preview',
      async () => (await sql(em, `select 1 from analysis_images where analysis_id = ?`, [made.analysisId])).length > 0,
      60_000,
    );
    const [preview] = await sql<Record<string, unknown>>(
      em,
      `delete from analysis_images where analysis_id = ? returning organisation_id, content_type, width, height, bytes`,
      [made.analysisId],
    );
    release();
    await notThereAfter;
    await sql(
      em,
      `insert into analysis_images (analysis_id, organisation_id, content_type, width, height, bytes, created_at) values (?, ?, ?, ?, ?, ?, now())`,
      [made.analysisId, preview.organisation_id, preview.content_type, preview.width, preview.height, preview.bytes],
    );
    assert.equal(held, 1, 'the photo was first asked for while the analysis was processing');
    // The rest of the file's photos go straight to the API: nothing is left in a handler when it ends.
    await page.unroute('**/api/v1/analyses/*/image');
    await page.getByTestId('analysis-photo').waitFor({ timeout: 30_000 });
    await waitFor('the boxes', async () => (await page.getByTestId('product-box').count()) === located, 30_000);
    const href = await page.locator('[data-testid=analysis-photo] image').getAttribute('href');
    assert.match(href ?? '', /^blob:/);
    const loaded = await page.evaluate(async (src) => {
      const img = new Image();
      img.src = src;
      await img.decode();
      return img.naturalWidth;
    }, href!);
    assert.equal(loaded, 1600, 'the photo itself, upright, at its size');
    // Name, price, facings and match status of each, in the table numbered like the boxes.
    const first = analysis.products[0];
    await page
      .getByRole('cell', { name: new RegExp(`${first.brand} ${first.description}`) })
      .first()
      .waitFor();
    assert.equal(await page.locator('table.products tbody tr').count(), analysis.products.length);
    const title = await page.locator('[data-testid=product-box] title').first().textContent();
    assert.match(title ?? '', /^1\. .+: .+, \d+ facings?, (matched|probable|unmatched)$/);
    const workflow = await page.getByRole('link', { name: /Workflow in Temporal UI/ }).getAttribute('href');
    assert.equal(workflow, `http://127.0.0.1:8233/namespaces/default/workflows/${made.analysisId}`);
    await assertLabelled(page);
    await shoot(page, 'analysis');

    // Its callback's delivery in the page's log, redelivered from there: the same delivery id, signed
    // with the analysis' callback secret, and a second attempt in the log.
    const callback = page.locator('.delivery').filter({ hasText: "to the analysis' callback URL" });
    await callback.getByText('succeeded').waitFor({ timeout: 30_000 });
    const callbackId = (await callback.getAttribute('data-delivery'))!;
    const before = receiver.received.length;
    await callback.getByRole('button', { name: 'Redeliver' }).click();
    const again = await waitFor('the callback redelivered', async () =>
      receiver.received.slice(before).find((r) => r.headers['x-service-delivery'] === callbackId),
    );
    assert.equal(verifyWebhookSignature(again.raw, again.headers, [made.callbackSecret!]).event, 'analysis.completed');
    await waitFor(
      'two attempts of the callback in the log',
      async () => (await callback.locator('.attempts tbody tr').count()) === 2,
      20_000,
    );
    // The list again, without filters: the failed one too.
    await nav(page, 'Analyses');
    await page.getByRole('cell', { name: 'failed' }).first().waitFor({ timeout: 60_000 });
    await assertLabelled(page);
    await shoot(page, 'analyses');
  });

  it("a webhook's secret is rotated, and the next delivery verifies with the new one", async () => {
    await nav(page, 'Webhooks');
    await heading(page, 'Webhooks');
    await page.getByText('No webhook endpoints yet').waitFor();
    await page.getByLabel('URL', { exact: true }).fill(receiver.url);
    await page.getByLabel('Description (optional)').fill('Receiver of the console test');
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    made.secret = (await page.getByTestId('secret-value').innerText()).trim();
    assert.match(made.secret, /^whsec_/);
    await assertLabelled(page);
    await shoot(page, 'webhooks');
    await page.getByRole('link', { name: 'Open the endpoint' }).click();
    await heading(page, 'Receiver of the console test');
    made.webhookId = new URL(page.url()).pathname.split('/').pop();
    await page.getByRole('button', { name: 'Rotate secret' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Rotate' }).click();
    made.rotated = (await page.getByTestId('secret-value').innerText()).trim();
    assert.notEqual(made.rotated, made.secret);
    await page.getByRole('button', { name: 'Send a test event' }).click();
    await page.getByText(/Test event sent/).waitFor();
    const delivery = await waitFor('the test delivery', async () =>
      receiver.received.find((r) => r.raw.includes('webhook.test')),
    );
    // Verified with the new secret alone; the old one still signs for its 24 hours (a second v1).
    const event = verifyWebhookSignature(delivery.raw, delivery.headers, [made.rotated]);
    assert.equal(event.event, 'webhook.test');
    assert.equal(String(delivery.headers['x-service-signature']).match(/v1=/g)?.length, 2);
    assert.throws(() => verifyWebhookSignature(delivery.raw, delivery.headers, ['whsec_not_the_secret']));
    // The log shows the attempt: its status code and latency.
    await page.locator('.delivery').first().getByText('succeeded').waitFor({ timeout: 15_000 });
    await page.locator('.attempts td[data-label=Status]').getByText('200').first().waitFor();
  });

  it('a redelivery appears in the log (the same delivery id, a second attempt)', async () => {
    const before = receiver.received.length;
    const deliveryId = await page.locator('.delivery').first().getAttribute('data-delivery');
    await page.locator('.delivery').first().getByRole('button', { name: 'Redeliver' }).click();
    await waitFor('the redelivery', async () => receiver.received.length > before);
    const again = receiver.received.at(-1)!;
    assert.equal(again.headers['x-service-delivery'], deliveryId);
    verifyWebhookSignature(again.raw, again.headers, [made.rotated!]);
    await waitFor(
      'two attempts in the log',
      async () => (await page.locator(`[data-delivery="${deliveryId}"] .attempts tbody tr`).count()) === 2,
      20_000,
    );
    await assertLabelled(page);
    await shoot(page, 'webhook');
  });

  it('usage shows credits by pool, plan, rate limits and analyses per day', async () => {
    await nav(page, 'Usage');
    await heading(page, 'Usage');
    const usage = await request(api.baseUrl, 'GET', '/usage', { key: org.keys.read });
    await page.getByTestId('credits-remaining').getByText(String(usage.body.data.credits.remaining)).waitFor();
    await page.getByTestId('daily-chart').waitFor();
    assert.ok((await page.locator('[data-testid=daily-chart] rect').count()) >= 2, 'a completed and a failed bar');
    await assertLabelled(page);
    await shoot(page, 'usage');
  });

  it('alerts: the failed analysis raised one; it is acknowledged, then snoozed', async () => {
    await nav(page, 'Alerts');
    await heading(page, 'Alerts');
    const item = page.locator('.alert').first();
    await item.getByText('Analysis failed', { exact: true }).waitFor({ timeout: 30_000 });
    await item.getByRole('button', { name: 'Acknowledge' }).click();
    await page.getByText(/marked acknowledged/).waitFor();
    await item.getByText('acknowledged').first().waitFor();
    await page.locator('.alert').first().getByRole('button', { name: 'Snooze' }).click();
    await page.getByText(/snoozed\./).waitFor();
    const [alert] = (await request(api.baseUrl, 'GET', '/alerts', { key: org.keys.read })).body.data;
    assert.equal(alert.status, 'snoozed');
    assert.match(alert.actionedBy, /^usr_/, 'actioned by the member, not a key');
    await assertLabelled(page);
    await shoot(page, 'alerts');

    // Its own page: what it says and where from, acknowledged and snoozed from there too.
    await page.locator('.alert').first().getByRole('link', { name: 'Analysis failed' }).click();
    await heading(page, 'Analysis failed');
    await page.getByRole('link', { name: /^analysis an_/ }).waitFor();
    await page.getByText('(then unread again)').waitFor();
    await page.getByRole('button', { name: 'Acknowledge' }).click();
    await page.getByText(/marked acknowledged/).waitFor();
    const acknowledged = await request(api.baseUrl, 'GET', `/alerts/${alert.id}`, { key: org.keys.read });
    assert.equal(acknowledged.body.data.status, 'acknowledged');
    await page.getByText(/by you/).waitFor();
    await page.getByLabel('Snooze for').selectOption({ label: '1 day' });
    await page.getByRole('button', { name: 'Snooze' }).click();
    await page.getByText(/snoozed\./).waitFor();
    const snoozed = (await request(api.baseUrl, 'GET', `/alerts/${alert.id}`, { key: org.keys.read })).body.data;
    assert.equal(snoozed.status, 'snoozed');
    assert.ok(Date.parse(snoozed.snoozedUntil) > Date.now() + 23 * 3600_000, 'a day');
    await assertLabelled(page);
    await shoot(page, 'alert');
  });

  it('a tasker, invited from the members page, sees tasks and no keys page, and the API refuses them too', async () => {
    await nav(page, 'Members');
    await heading(page, 'Members');
    await page.getByLabel('E-mail address').fill('terry@console.example');
    await page.getByLabel('Role', { exact: true }).selectOption('tasker');
    await page.getByRole('button', { name: 'Invite' }).click();
    const link = (await page.getByTestId('secret-value').innerText()).trim();
    await assertLabelled(page);
    await shoot(page, 'members');

    const { context: taskerContext, watch: taskerWatch } = await watchedContext();
    const tasker = await taskerContext.newPage();
    await tasker.goto(link);
    await heading(tasker, 'Join Console Grocers');
    await assertLabelled(tasker);
    await shoot(tasker, 'join');
    await acceptInvitation(tasker, 'Terry Tasker', 'terry the tasker 1');
    await heading(tasker, 'Tasks');
    const menu = await tasker.getByRole('navigation', { name: 'Console' }).innerText();
    assert.doesNotMatch(menu, /API keys|Webhooks|Analyses|Members/);
    // A task for them, made by the office's key; they complete it.
    const me = (await request(api.baseUrl, 'GET', '/members?search=terry', { key: org.keys.read })).body.data[0];
    const task = await request(api.baseUrl, 'POST', '/tasks', {
      key: made.key,
      body: { title: 'Check the soft drinks aisle', assignedTo: me.userId, dueDate: '2026-12-01' },
    });
    assert.equal(task.status, 201, task.text);
    await tasker.reload();
    await tasker.getByRole('link', { name: 'Check the soft drinks aisle' }).waitFor();
    await assertLabelled(tasker);
    await shoot(tasker, 'tasks-tasker');
    await tasker.getByRole('link', { name: 'Check the soft drinks aisle' }).click();
    await heading(tasker, 'Check the soft drinks aisle');
    await assertLabelled(tasker);
    await shoot(tasker, 'task');
    await tasker.getByRole('button', { name: 'Complete' }).click();
    await tasker.getByText('Task completed.').waitFor();
    assert.equal(
      (await request(api.baseUrl, 'GET', `/tasks/${task.body.data.id}`, { key: org.keys.read })).body.data.completedBy,
      me.userId,
    );
    // No keys page in the console...
    await tasker.goto(`${api.baseUrl}/console/api-keys`);
    await heading(tasker, 'Page not found');
    await shoot(tasker, 'not-found');
    // ...and the API refuses the tasker's session, whatever the page does.
    const status = await tasker.evaluate(async () => (await fetch('/api/v1/api-keys')).status);
    assert.equal(status, 403);
    assert.deepEqual(taskerWatch.problems, []);
    assert.deepEqual(taskerWatch.outside, []);
    await taskerContext.close();
    // The office's view of the same list: everyone's tasks.
    await nav(page, 'Tasks');
    await heading(page, 'Tasks');
    await page.getByLabel('Whose').selectOption({ label: "Everyone's" });
    await page.getByRole('link', { name: 'Check the soft drinks aisle' }).waitFor();
    await assertLabelled(page);
    await shoot(page, 'tasks');
  });

  it('a request with the session cookie but without the CSRF defence changes nothing', async () => {
    const keys = async () =>
      (
        await sql<{ n: number }>(
          api.runtime.orm.em.fork(),
          `select count(*)::int as n from api_keys where organisation_id = ?`,
          [org.id],
        )
      )[0]!.n;
    const before = await keys();
    // From the console's own page, but without the X-CSRF-Token header: refused.
    const sameOrigin = await page.evaluate(async () => {
      const res = await fetch('/api/v1/api-keys', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ role: 'admin', name: 'forged' }),
      });
      return { status: res.status, body: await res.json() };
    });
    assert.equal(sameOrigin.status, 403);
    assert.equal(sameOrigin.body.error.details.reason, 'csrf_token');
    // From another site's page (another port of the same host: the same site, so SameSite alone
    // would let the cookie through): a form and a no-cors fetch, both carrying the cookie.
    const attacker: Server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html>
<form id="f" method="POST" action="${api.baseUrl}/api/v1/api-keys" enctype="text/plain"><input name='{"role":"admin","name":"forged","x":"' value='"}'></form>
<script>fetch('${api.baseUrl}/api/v1/api-keys', { method: 'POST', mode: 'no-cors', credentials: 'include', body: '{"role":"admin"}' }).finally(() => document.getElementById('f').submit());</script>`);
    });
    await new Promise<void>((r) => attacker.listen(0, '127.0.0.1', r));
    const evil = await owner.newPage();
    const refused = new Promise<number>((resolve) =>
      evil.on(
        'response',
        (r) => r.url().endsWith('/api/v1/api-keys') && r.request().method() === 'POST' && resolve(r.status()),
      ),
    );
    // The harness lets this page's own origin through (and nothing else).
    await owner.route(`http://127.0.0.1:${(attacker.address() as AddressInfo).port}/**`, (route) => route.continue());
    await evil.goto(`http://127.0.0.1:${(attacker.address() as AddressInfo).port}/`);
    assert.equal(await refused, 403);
    await evil.waitForLoadState('load');
    await evil.close();
    attacker.close();
    assert.equal(await keys(), before, 'no key was created');
  });

  it('a member changes their own password: the current one first; their other sessions end, this one goes on', async () => {
    // The owner signed in in a second browser too.
    const { context: second } = await watchedContext();
    const other = await second.newPage();
    await other.goto(`${api.baseUrl}/console`);
    await other.getByLabel('E-mail address').fill('olive@console.example');
    await other.getByLabel('Password').fill(PASSWORD);
    await other.getByRole('button', { name: 'Sign in' }).click();
    await heading(other, 'Analyses');

    await page.goto(`${api.baseUrl}/console/account`);
    await heading(page, 'Your account');
    await page.getByRole('link', { name: 'Change your password' }).click();
    await heading(page, 'Change your password');
    await assertLabelled(page);
    await shoot(page, 'account-password');
    await page.getByLabel('Current password').fill('not the current one');
    await page.getByLabel('New password').fill(NEW_PASSWORD);
    await page.getByLabel('The same password again').fill(NEW_PASSWORD);
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.getByText('This is not your current password.').waitFor();
    await page.getByLabel('Current password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.getByText('Password changed. 1 other session signed out.').waitFor();
    // This session goes on; the other browser's ended on the server.
    assert.equal(await page.evaluate(async () => (await fetch('/api/v1/auth/session')).status), 200);
    assert.equal(await other.evaluate(async () => (await fetch('/api/v1/auth/session')).status), 401);
    await other.reload();
    await heading(other, 'Sign in to the Shelf console');
    await second.close();
  });

  it('sign-out ends the session on the server', async () => {
    await page.goto(`${api.baseUrl}/console/account`);
    await heading(page, 'Your account');
    await assertLabelled(page);
    await shoot(page, 'account');
    const cookie = (await owner.cookies()).find((c) => c.name === 'shelf_session')!;
    const asBefore = () =>
      fetch(`${api.baseUrl}/api/v1/auth/session`, { headers: { cookie: `shelf_session=${cookie.value}` } });
    assert.equal((await asBefore()).status, 200);
    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await heading(page, 'Sign in to the Shelf console');
    // The cookie as it was, replayed from outside the browser: the server has ended the session.
    assert.equal((await asBefore()).status, 401);
    const [{ n }] = await sql<{ n: number }>(
      api.runtime.orm.em.fork(),
      `select count(*)::int as n from sessions s join users u on u.id = s.user_id where u.email = 'olive@console.example'`,
    );
    assert.equal(n, 0);
    // And signing in again with the (new) password works.
    await page.getByLabel('E-mail address').fill('olive@console.example');
    await page.getByLabel('Password').fill(NEW_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await heading(page, 'Analyses');
  });

  it('the analyses list pages, filters and finds among 10,000 analyses (its speed: npm run bench:console)', async () => {
    const big = await createTestOrg(api.runtime, { name: 'Ten Thousand' });
    const em = api.runtime.orm.em.fork();
    const times = await seedAnalyses(em, big.id, 10_000);
    const { context } = await watchedContext();
    const p = await context.newPage();
    await ownerSignedIn(api, big.id, p, 'big@console.example');
    const rows = p.locator('table.list tbody tr');
    const firstCell = () => p.locator('table.list tbody tr td[data-label="External id"]').first().innerText();
    await waitFor('the newest 25', async () => (await rows.count()) === 25 && (await firstCell()) === 'visit-10000');
    // Older, older, newer: the pager walks the cursors, and the URL keeps the place.
    await p.getByRole('button', { name: 'Older →' }).click();
    await waitFor('page 2', async () => (await firstCell()) === 'visit-9975');
    await p.getByRole('button', { name: 'Older →' }).click();
    await waitFor('page 3', async () => (await firstCell()) === 'visit-9950');
    await p.getByRole('button', { name: '← Newer' }).click();
    await waitFor('page 2 again', async () => (await firstCell()) === 'visit-9975');
    await p.reload();
    await waitFor('page 2 after a reload', async () => (await firstCell()) === 'visit-9975');
    // Filters: every failed one is a tenth; from a date; one external id.
    await p.goto(`${api.baseUrl}/console/analyses?status=failed`);
    await waitFor(
      'failed only',
      async () =>
        (await rows.count()) === 25 &&
        (await p.locator('td[data-label=Status]').allInnerTexts()).every((t) => t === 'failed'),
    );
    const day = times[5000]!.slice(0, 10);
    await p.goto(`${api.baseUrl}/console/analyses?from=${day}`);
    await waitFor('from a date', async () => (await rows.count()) === 25);
    await p.goto(`${api.baseUrl}/console/analyses?externalId=visit-5000`);
    await waitFor('one external id', async () => (await rows.count()) === 1 && (await firstCell()) === 'visit-5000');
    await context.close();
  });

  it('with SMTP_URL set, an invitation from the members page is mailed, and its link from the mail lets them join', async () => {
    const smtp = await startSmtpServer({ user: 'console', pass: 'mail pass 1' });
    const mailing = await startTestApi({
      TASK_QUEUE_PREFIX: uniquePrefix('console-mail'),
      CONSOLE_DIR: consoleDir,
      SMTP_URL: smtp.url,
    });
    try {
      const mailOrg = await createTestOrg(mailing.runtime, { name: 'Mailing Grocers' });
      const { context, watch: mailWatch } = await watchedContext(mailing.baseUrl);
      const p = await context.newPage();
      await ownerSignedIn(mailing, mailOrg.id, p, 'mo@mail.example');
      await nav(p, 'Members');
      await heading(p, 'Members');
      await p.getByLabel('E-mail address').fill('ivy@mail.example');
      await p.getByRole('button', { name: 'Invite' }).click();
      // Said, not shown: only the invited person gets the link.
      await p.getByText(/Invitation link mailed to/).waitFor();
      await p.getByText('ivy@mail.example', { exact: true }).first().waitFor();
      assert.equal(await p.getByTestId('secret-value').count(), 0);
      await shoot(p, 'members-mailed');
      const mail = await waitFor('the invitation mail', async () =>
        smtp.received.find((m) => m.to.includes('ivy@mail.example')),
      );
      const invited = await context.browser()!.newContext();
      const ivy = await invited.newPage();
      await ivy.goto(linkIn(mail));
      await heading(ivy, 'Join Mailing Grocers');
      await acceptInvitation(ivy, 'Ivy Invited', 'ivy the invited 1');
      await heading(ivy, 'Analyses');
      await invited.close();
      assert.deepEqual(mailWatch.problems, []);
      assert.deepEqual(mailWatch.outside, []);
      await context.close();
    } finally {
      await mailing.close();
      await smtp.close();
    }
  });

  it('loaded nothing from elsewhere, broke no policy and threw nothing, on any page', () => {
    assert.deepEqual(watch.outside, []);
    assert.deepEqual(watch.problems, []);
  });
});
