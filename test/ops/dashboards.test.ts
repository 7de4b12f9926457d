import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, it } from 'node:test';
import { load } from 'js-yaml';
import { registry } from '../../src/lib/metrics.js';

const ops = resolve(import.meta.dirname, '../../ops');
const read = (path: string) => readFileSync(resolve(ops, path), 'utf8');

type Alerts = { groups: { rules: { alert: string; expr: string }[] }[] };
type Dashboard = { panels: { title: string; targets: { expr: string }[] }[] };

/** Every series name a PromQL expression reads (histogram suffixes folded into their metric). */
const seriesIn = (expr: string) =>
  [...expr.matchAll(/\b(shelf|temporal)_[a-z_]+/g)].map((m) => m[0].replace(/_(bucket|count|sum)$/, ''));

describe('ops/: Prometheus and Grafana configuration', () => {
  const alerts = load(read('prometheus/alerts.yml')) as Alerts;
  const dashboard = JSON.parse(read('grafana/dashboards/shelf-service.json')) as Dashboard;
  const exprs = [
    ...alerts.groups.flatMap((g) => g.rules.map((r) => r.expr)),
    ...dashboard.panels.flatMap((p) => p.targets.map((t) => t.expr)),
  ];

  it('every shelf_* series the alerts and the dashboard read is one the service exports', async () => {
    const ours = new Set((await registry.getMetricsAsJSON()).map((m) => m.name));
    const used = new Set(exprs.flatMap(seriesIn).filter((n) => n.startsWith('shelf_')));
    assert.ok(used.size >= 8, [...used].join(', '));
    for (const name of used) assert.ok(ours.has(name), `${name} is not exported`);
  });

  it('the dashboard has the panels on-call opens first, and Prometheus scrapes all three endpoints', () => {
    const titles = dashboard.panels.map((p) => p.title).join(' | ');
    for (const part of [
      'API requests',
      'API latency',
      'Analyses finished',
      'Queue backlog',
      'Webhook delivery success',
    ])
      assert.match(titles, new RegExp(part));
    const prometheus = load(read('prometheus/prometheus.yml')) as {
      scrape_configs: { job_name: string; static_configs: { targets: string[] }[] }[];
    };
    const targets = prometheus.scrape_configs.flatMap((c) => c.static_configs.flatMap((s) => s.targets));
    assert.deepEqual(targets.sort(), ['api:9464', 'worker:3001', 'worker:9465']);
  });
});
