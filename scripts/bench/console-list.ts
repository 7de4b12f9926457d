// Benchmark: the console's analyses list with many analyses (issue 37: "the list pages quick with
// 10,000 analyses, measured against the API's own list time"). One organisation with BENCH_ANALYSES
// (10,000) analyses; for each list view, the median of BENCH_ROUNDS (9) API requests of its page of
// 25 (GET /analyses, a key, the JSON read), and of the console showing it in Debian's Chromium, from
// navigation to the 25 rows on screen (page, script, session, the places for the filter, the list),
// and the next page from a click of the pager. Prints numbers; asserts nothing.
// Usage: DATABASE_URL=postgres://… npm run bench:console   (BENCH_ANALYSES, BENCH_ROUNDS)
import { existsSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { chromium, type Page } from 'playwright-core';
import { createApp } from '../../src/http/app.js';
import { listen } from '../../src/http/listen.js';
import { createServices } from '../../src/services.js';
import { buildConsole } from '../build-console.js';
import { seedAnalyses } from '../../test/helpers/many-analyses.js';
import { benchEnvironment, benchRuntime } from './setup.js';
import { toolSettings } from '../lib/tool-settings.js';
import { quantile } from '../lib/quantile.js';

const COUNT = toolSettings().BENCH_ANALYSES;
const ROUNDS = toolSettings().BENCH_ROUNDS ?? 9;
const executablePath = ['/usr/lib/chromium/chromium', '/usr/bin/chromium'].find((p) => existsSync(p));
if (!executablePath) throw new Error('Install Debian chromium (apt-get install chromium).');

const { devServer } = await benchEnvironment(7258);
const consoleDir = join(resolve(import.meta.dirname, '../..'), '.data', 'bench', 'console');
await buildConsole(consoleDir);
const { runtime } = await benchRuntime({ CONSOLE_DIR: consoleDir });
const server = await listen(createApp(runtime).app, 0, '127.0.0.1');
const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

const services = createServices(runtime.orm.em.fork(), { config: runtime.config, logger: runtime.logger });
const org = await services.organisations.create({ name: 'Ten Thousand', plan: 'scale', credits: 0 });
const key = await services.apiKeys.create(org.id, 'read', 'bench');
const times = await seedAnalyses(runtime.orm.em.fork(), org.id, COUNT);
const owner = await services.members.add(org.id, {
  name: 'Bench Owner',
  email: 'bench@console.example',
  role: 'owner',
});
const { token } = await services.sessions.createSignInLink(org.id, owner.id);

const browser = await chromium.launch({ executablePath, args: ['--no-sandbox', '--disable-gpu', '--no-first-run'] });
const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
await page.goto(`${baseUrl}/console/set-password#token=${token}`);
await page.getByLabel('New password').fill('ten thousand rows');
await page.getByLabel('The same password again').fill('ten thousand rows');
await page.getByRole('button', { name: 'Save and sign in' }).click();
await page.getByRole('heading', { level: 1, name: 'Analyses' }).waitFor();

const median = (xs: number[]) => quantile(xs, 0.5);
/** 25 rows on screen and the list no longer loading. */
const rowsShown = (p: Page) =>
  p.waitForFunction(
    () => document.querySelectorAll('table.list tbody tr').length === 25 && !document.querySelector('[aria-busy=true]'),
    undefined,
    { polling: 'raf', timeout: 30_000 },
  );

async function timeApi(query: string): Promise<number> {
  const ms: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const t = performance.now();
    const res = await fetch(`${baseUrl}/api/v1/analyses?${query}`, {
      headers: { authorization: `Bearer ${key.secret}` },
    });
    await res.json();
    ms.push(performance.now() - t);
  }
  return median(ms);
}

async function timeConsole(path: string): Promise<number> {
  const ms: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const t = performance.now();
    await page.goto(`${baseUrl}/console${path}`);
    await rowsShown(page);
    ms.push(performance.now() - t);
  }
  return median(ms);
}

async function timeNextPage(): Promise<number> {
  const ms: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    await page.goto(`${baseUrl}/console/analyses`);
    await rowsShown(page);
    const first = await page.locator('table.list tbody tr td a').first().innerText();
    const t = performance.now();
    await page.getByRole('button', { name: 'Older →' }).click();
    await page.waitForFunction(
      (before) => {
        const a = document.querySelector('table.list tbody tr td a');
        return a && (a as HTMLElement).innerText !== before && !document.querySelector('[aria-busy=true]');
      },
      first,
      { polling: 'raf', timeout: 30_000 },
    );
    ms.push(performance.now() - t);
  }
  return median(ms);
}

const day = times[Math.floor(times.length / 2)]!.slice(0, 10);
const views: [string, string, string][] = [
  ['newest 25', 'limit=25', '/analyses'],
  ['status=failed', 'limit=25&status=failed', '/analyses?status=failed'],
  ['from a date', `limit=25&createdAfter=${day}`, `/analyses?from=${day}`],
  ['external id', 'limit=25&externalId=visit-5000', '/analyses?externalId=visit-5000'],
];
const lines = [
  `analyses list, ${COUNT.toLocaleString('en')} analyses in one organisation, median of ${ROUNDS} (ms)`,
  `${'view'.padEnd(16)}${'API (GET, 25)'.padStart(14)}${'console (load to rows)'.padStart(24)}`,
];
for (const [name, query, path] of views) {
  const api = await timeApi(query);
  // The external id matches one analysis: the console shows one row, not 25.
  const consoleMs = name === 'external id' ? await timeOne(path) : await timeConsole(path);
  lines.push(`${name.padEnd(16)}${api.toFixed(1).padStart(14)}${consoleMs.toFixed(0).padStart(24)}`);
}
lines.push(`${'next page (click)'.padEnd(30)}${(await timeNextPage()).toFixed(0).padStart(24)}`);
console.log(lines.join('\n'));

async function timeOne(path: string): Promise<number> {
  const ms: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const t = performance.now();
    await page.goto(`${baseUrl}/console${path}`);
    await page.waitForFunction(() => document.querySelectorAll('table.list tbody tr').length === 1, undefined, {
      polling: 'raf',
      timeout: 30_000,
    });
    ms.push(performance.now() - t);
  }
  return median(ms);
}

await browser.close();
await new Promise<void>((r) => server.close(() => r()));
server.closeAllConnections();
await runtime.close();
await devServer?.stop();
