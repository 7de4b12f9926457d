import { useState } from 'preact/hooks';
import { api, type DailyUsage } from '../api.js';
import { useLoad } from '../hooks.js';
import { ErrorNotice, Facts, Field, Loading, PageHeader, Time, valueOf } from '../ui.js';

/**
 * Analyses per day as stacked bars (completed, failed, still processing), drawn in SVG; the same
 * numbers are in a table beside it for screen readers and for reading exact values.
 */
function DailyChart(props: { usage: DailyUsage }) {
  const { series } = props.usage;
  const max = Math.max(1, ...series.map((d) => d.submitted));
  const width = 720;
  const height = 220;
  const top = 12;
  const bottom = 28;
  const left = 36;
  const plot = height - top - bottom;
  const slot = (width - left) / series.length;
  const bar = Math.max(2, slot * 0.7);
  const y = (v: number) => top + plot - (v / max) * plot;
  const ticks = [0, Math.ceil(max / 2), max];
  const labelEvery = Math.ceil(series.length / 8);
  return (
    <figure class="chart">
      <svg viewBox={`0 0 ${width} ${height}`} role="img" aria-labelledby="chart-title" data-testid="daily-chart">
        <title id="chart-title">
          Analyses per day, {props.usage.from} to {props.usage.to}: {series.reduce((n, d) => n + d.submitted, 0)} in all
        </title>
        {ticks.map((t) => (
          <g key={t} class="axis">
            <line x1={left} x2={width} y1={y(t)} y2={y(t)} />
            <text x={left - 6} y={y(t) + 4} text-anchor="end">
              {t}
            </text>
          </g>
        ))}
        {series.map((d, i) => {
          const x = left + i * slot + (slot - bar) / 2;
          let base = top + plot;
          const parts = [
            ['completed', d.completed],
            ['failed', d.failed],
            ['processing', d.processing],
          ] as const;
          return (
            <g key={d.date}>
              <title>{`${d.date}: ${d.submitted} submitted, ${d.completed} completed, ${d.failed} failed, ${d.processing} processing`}</title>
              {parts.map(([kind, n]) => {
                const h = (n / max) * plot;
                base -= h;
                return n > 0 ? <rect key={kind} class={`bar-${kind}`} x={x} y={base} width={bar} height={h} /> : null;
              })}
              {i % labelEvery === 0 && (
                <text class="axis-label" x={x + bar / 2} y={height - 8} text-anchor="middle">
                  {d.date.slice(5)}
                </text>
              )}
            </g>
          );
        })}
      </svg>
      <figcaption>
        <span class="key key-completed">completed</span> <span class="key key-failed">failed</span>{' '}
        <span class="key key-processing">processing</span>
      </figcaption>
      <details>
        <summary>The numbers</summary>
        <table class="list compact">
          <caption class="visually-hidden">Analyses per day</caption>
          <thead>
            <tr>
              <th scope="col">Day (UTC)</th>
              <th scope="col">Submitted</th>
              <th scope="col">Completed</th>
              <th scope="col">Failed</th>
              <th scope="col">Processing</th>
            </tr>
          </thead>
          <tbody>
            {series
              .filter((d) => d.submitted > 0)
              .map((d) => (
                <tr key={d.date}>
                  <td data-label="Day">{d.date}</td>
                  <td data-label="Submitted">{d.submitted}</td>
                  <td data-label="Completed">{d.completed}</td>
                  <td data-label="Failed">{d.failed}</td>
                  <td data-label="Processing">{d.processing}</td>
                </tr>
              ))}
          </tbody>
        </table>
      </details>
    </figure>
  );
}

function Meter(props: { label: string; remaining: number; limit: number; resetAt: string }) {
  const used = props.limit - props.remaining;
  return (
    <div class="meter">
      <div class="meter-label">
        <strong>{props.label}</strong>{' '}
        <span>
          {props.remaining} of {props.limit} left this minute
        </span>
      </div>
      <meter min={0} max={props.limit} value={used} aria-label={`${props.label}: ${used} of ${props.limit} used`} />
      <div class="muted">
        a slot frees <Time value={props.resetAt} />
      </div>
    </div>
  );
}

export function UsagePage() {
  const [days, setDays] = useState(30);
  const usage = useLoad((signal) => api.get('/api/v1/usage', { signal }).then((r) => r.data), []);
  const daily = useLoad(
    (signal) => api.get('/api/v1/usage/daily', { params: { query: { days } }, signal }).then((r) => r.data),
    [days],
  );
  const u = usage.data;
  return (
    <section>
      <PageHeader title="Usage">
        <p class="lead">Credits, plan and limits of your organisation. One credit is one analysed photo.</p>
      </PageHeader>
      <ErrorNotice error={usage.error} onRetry={usage.reload} />
      {!u ? (
        usage.loading && <Loading what="usage" />
      ) : (
        <div class="grid">
          <div class="card">
            <h2>Credits</h2>
            <p class="big" data-testid="credits-remaining">
              {u.credits.remaining}
            </p>
            <Facts
              items={[
                ['Plan credits (spent first)', u.credits.plan],
                ['Pay-as-you-go credits', u.credits.payg],
                ['Used this period', u.credits.usedThisPeriod],
              ]}
            />
            {u.credits.remaining < 10 && (
              <p class="notice notice-error" role="alert">
                Few credits left: submissions are refused at zero. Ask your operator to grant more.
              </p>
            )}
          </div>
          <div class="card">
            <h2>Plan</h2>
            <p class="big">{u.plan.tier}</p>
            <Facts
              items={[
                [
                  'Period',
                  <>
                    <Time value={u.plan.periodStart} /> to <Time value={u.plan.periodEnd} />
                  </>,
                ],
                ['Credits each period', u.plan.monthlyCredits],
                ['Images per batch', u.maxBatchSize],
              ]}
            />
          </div>
          <div class="card">
            <h2>Rate limits</h2>
            <p class="muted">Your own windows (each member and each key has its own), rolling 60 seconds.</p>
            <Meter label="Analyses" {...u.rateLimits.analyses} />
            <Meter label="Reads" {...u.rateLimits.reads} />
            <Meter label="Writes" {...u.rateLimits.writes} />
          </div>
        </div>
      )}
      <h2>Analyses per day</h2>
      <Field id="days" label="Period">
        <select id="days" value={days} onChange={(e) => setDays(Number(valueOf(e)))}>
          <option value={7}>Last 7 days</option>
          <option value={30}>Last 30 days</option>
          <option value={90}>Last 90 days</option>
        </select>
      </Field>
      <ErrorNotice error={daily.error} onRetry={daily.reload} />
      {daily.data ? (
        daily.data.series.every((d) => d.submitted === 0) ? (
          <p class="muted">No analyses in this period.</p>
        ) : (
          <DailyChart usage={daily.data} />
        )
      ) : (
        daily.loading && <Loading what="the chart" />
      )}
    </section>
  );
}
