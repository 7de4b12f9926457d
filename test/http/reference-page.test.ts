import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { chromium, type Browser } from 'playwright-core';
import { startTestApi, type TestApi } from '../helpers/api.js';

/** Debian's chromium (`apt-get install chromium`; .ci/run installs it): the binary behind its wrapper script. */
const executablePath = ['/usr/lib/chromium/chromium', '/usr/bin/chromium'].find((p) => existsSync(p));

describe('the interactive API reference (/api/v1/docs) in headless Chromium', () => {
  let api: TestApi;
  let browser: Browser;

  before(async () => {
    assert.ok(executablePath, 'chromium is installed');
    api = await startTestApi();
    browser = await chromium.launch({
      executablePath,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
  });
  after(async () => {
    await browser?.close();
    await api?.close();
  });

  it('renders the operations from the OpenAPI document, offline, under a strict CSP, with no page errors and no violation', async () => {
    const page = await browser.newPage();
    const problems: string[] = [];
    const outside: string[] = [];
    page.on('pageerror', (err) => problems.push(`pageerror: ${err.message}`));
    // Errors, and any message about the content security policy whatever its level (a report-only
    // policy, or a refusal Chromium logs as a warning), are problems.
    page.on('console', (msg) => {
      if (msg.type() === 'error' || /Content Security Policy/i.test(msg.text()))
        problems.push(`console ${msg.type()}: ${msg.text()}`);
    });
    // The page's own record of what its policy refused (a refused load never reaches the route below).
    await page.addInitScript(() => {
      const seen: string[] = [];
      (window as unknown as { cspViolations: string[] }).cspViolations = seen;
      document.addEventListener('securitypolicyviolation', (e) =>
        seen.push(
          `${e.effectiveDirective} refused ${e.blockedURI || '(inline)'} at ${e.sourceFile}:${e.lineNumber}:${e.columnNumber}`,
        ),
      );
    });
    // Everything must come from the service itself: anything else is recorded and refused.
    await page.route('**/*', (route) => {
      const url = route.request().url();
      if (url.startsWith(api.baseUrl) || url.startsWith('data:')) return route.continue();
      outside.push(url);
      return route.abort();
    });
    const res = await page.goto(`${api.baseUrl}/api/v1/docs`);
    assert.equal(res?.status(), 200);
    // A strict policy: nothing unless named, and every connection to the service itself.
    const csp = (await res!.allHeaders())['content-security-policy'] ?? '';
    assert.match(csp, /(^|; )default-src 'none'(;|$)/, csp);
    assert.match(csp, /(^|; )connect-src 'self'(;|$)/, csp);
    assert.doesNotMatch(csp, /https?:|\*|'unsafe-eval'/, `nothing from elsewhere, no eval: ${csp}`);
    // Operations render by their summaries (from the route definitions), grouped by tag, with a curl example.
    await page.getByText('Create a project').first().waitFor({ timeout: 30_000 });
    await page.getByText('Analyses', { exact: true }).first().click();
    await page.getByText('Submit one shelf image for analysis').first().waitFor();
    await page.getByText('Submit a batch of shelf images').first().waitFor();
    const text = await page.locator('body').innerText();
    assert.match(text, /\/api\/v1\/analyses/);
    assert.match(await page.content(), /curl/);
    // Beside curl and fetch, the TypeScript client's call (the operations' x-codeSamples), for every operation at once.
    await page
      .getByRole('button', { name: /Shell Curl/ })
      .first()
      .click();
    assert.deepEqual((await page.getByRole('option').allInnerTexts()).sort(), ['Curl', 'Fetch', 'TypeScript client']);
    await page.getByRole('option', { name: 'TypeScript client' }).click();
    await page.locator('code').filter({ hasText: "shelf.post('/api/v1/analyses'" }).first().waitFor();
    await page.locator('code').filter({ hasText: 'shelf.waitForAnalysis(data.id)' }).first().waitFor();
    assert.deepEqual(outside, [], 'no request leaves the service');
    assert.deepEqual(await page.evaluate(() => (window as unknown as { cspViolations: string[] }).cspViolations), []);
    assert.deepEqual(problems, []);
  });
});
