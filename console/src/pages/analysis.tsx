import { useEffect, useRef, useState } from 'preact/hooks';
import { analysisImageUrl, api, type Analysis, type Product } from '../api.js';
import { can, useSession } from '../session.js';
import { DeliveryLog } from '../deliveries.js';
import { useInterval, useLoad } from '../hooks.js';
import { Link } from '../router.js';
import { Badge, EmptyState, ErrorNotice, Facts, Loading, NotLoaded, PageHeader, ShortId, Time } from '../ui.js';

const money = (value: number | null, currency: string | null) =>
  value == null
    ? null
    : currency
      ? new Intl.NumberFormat(undefined, { style: 'currency', currency }).format(value)
      : value.toFixed(2);

const productName = (p: Product) => [p.brand, p.description].filter(Boolean).join(' ') || 'Unnamed product';

function priceOf(p: Product) {
  const regular = money(p.price, p.currency);
  const offer = money(p.discountedPrice, p.currency);
  if (offer && regular) return `${offer} (was ${regular})`;
  return offer ?? regular ?? '—';
}

/** The photo with every located product drawn as a numbered box, the numbers those of the table below. */
function Photo(props: { analysis: Analysis; highlight: number | null; onHighlight: (i: number | null) => void }) {
  const { analysis } = props;
  const [image, setImage] = useState<{ url: string; width: number; height: number } | null | undefined>(undefined);
  const [error, setError] = useState<unknown>(undefined);
  // A photo not there yet (still being fetched) is asked for again once the analysis has settled; a
  // photo already shown is kept (its blob: URL stays valid until the page leaves it). The answer "not
  // there" can arrive after the page has seen the analysis settle, so the check runs on either change,
  // and asks once more only if the last question was put before the settling.
  const [attempt, setAttempt] = useState(0);
  const settled = analysis.status !== 'processing';
  const askedSettled = useRef(false);
  useEffect(() => {
    if (settled && image === null && !askedSettled.current) setAttempt((n) => n + 1);
  }, [settled, image]);
  // The preview is made just after the result is out (decisions.md D190): a completed analysis with no
  // photo yet, finished within the last minute, is asked again every 2 s until it is there.
  const previewComing =
    analysis.status === 'completed' &&
    image === null &&
    !!analysis.completedAt &&
    Date.now() - Date.parse(analysis.completedAt) < 60_000;
  useInterval(() => setAttempt((n) => n + 1), 2000, previewComing);
  useEffect(() => {
    const controller = new AbortController();
    let url: string | null = null;
    askedSettled.current = settled;
    analysisImageUrl(analysis.id, controller.signal)
      .then(async (u) => {
        url = u;
        if (!u) return setImage(null);
        const img = new Image();
        img.src = u;
        await img.decode();
        if (!controller.signal.aborted) setImage({ url: u, width: img.naturalWidth, height: img.naturalHeight });
      })
      .catch((err: unknown) => !controller.signal.aborted && setError(err));
    return () => {
      controller.abort();
      if (url) URL.revokeObjectURL(url);
    };
  }, [analysis.id, attempt]);
  if (error) return <ErrorNotice error={error} />;
  if (image === undefined) return <Loading what="the photo" />;
  if (image === null)
    return (
      <EmptyState title="No photo to show">
        <p>
          {analysis.status === 'processing'
            ? 'The photo is still being fetched; it appears here in a moment.'
            : previewComing
              ? 'The preview of the photo is being made; it appears here in a moment.'
              : analysis.error
                ? `The photo could not be used: ${analysis.error.message}`
                : 'Its preview was removed after the retention period (IMAGE_PREVIEW_DAYS).'}
        </p>
      </EmptyState>
    );
  const { width: w, height: h } = image;
  const located = analysis.products.filter((p) => p.box).length;
  const stroke = Math.max(2, w / 400);
  return (
    <figure class="photo">
      <svg
        viewBox={`0 0 ${w} ${h}`}
        role="img"
        aria-label={`The shelf photo with ${located} of ${analysis.products.length} products marked; the table below lists them by number.`}
        data-testid="analysis-photo"
      >
        <image href={image.url} x={0} y={0} width={w} height={h} />
        {analysis.products.map((p, i) =>
          p.box ? (
            <g
              key={p.id}
              class={`box box-${p.matchStatus}${props.highlight === i ? ' box-highlight' : ''}`}
              data-testid="product-box"
              onMouseEnter={() => props.onHighlight(i)}
              onMouseLeave={() => props.onHighlight(null)}
            >
              <title>{`${i + 1}. ${productName(p)}: ${priceOf(p)}, ${p.units} facing${p.units === 1 ? '' : 's'}, ${p.matchStatus}`}</title>
              <rect
                x={p.box.x * w}
                y={p.box.y * h}
                width={p.box.width * w}
                height={p.box.height * h}
                stroke-width={stroke}
              />
              <rect
                class="box-tag"
                x={p.box.x * w}
                y={p.box.y * h}
                width={w / 40 + (String(i + 1).length - 1) * (w / 90)}
                height={w / 40}
              />
              <text x={p.box.x * w + w / 160} y={p.box.y * h + w / 50} font-size={w / 55}>
                {i + 1}
              </text>
            </g>
          ) : null,
        )}
      </svg>
      <figcaption>
        {located} of {analysis.products.length} products located on the photo. Green: matched to your catalogue; amber:
        probable; grey: unmatched.
      </figcaption>
    </figure>
  );
}

export function AnalysisPage(props: { id: string }) {
  const { session } = useSession();
  const [highlight, setHighlight] = useState<number | null>(null);
  const analysis = useLoad(
    (signal) => api.get('/api/v1/analyses/{id}', { params: { path: { id: props.id } }, signal }).then((r) => r.data),
    [props.id],
  );
  const deliveries = useLoad(
    (signal) =>
      can.admin(session)
        ? api
            .get('/api/v1/analyses/{id}/deliveries', { params: { path: { id: props.id } }, signal })
            .then((r) => r.data)
        : Promise.resolve(null),
    [props.id, analysis.data?.status],
  );
  const a = analysis.data;
  useInterval(analysis.reload, 2000, a?.status === 'processing');
  // Attempts still to come, or an analysis that just finished (its deliveries are being made): follow them.
  const justFinished = !!a?.completedAt && Date.now() - Date.parse(a.completedAt) < 60_000;
  useInterval(deliveries.reload, 3000, justFinished || (deliveries.data ?? []).some((d) => d.status === 'pending'));
  if (!a)
    return (
      <NotLoaded loaded={analysis} title="Analysis" what="the analysis" back={['/analyses', 'Back to analyses']} />
    );
  const ui = session.temporalUi;
  const workflowUrl = ui
    ? `${ui.url.replace(/\/+$/, '')}/namespaces/${encodeURIComponent(ui.namespace)}/workflows/${encodeURIComponent(a.id)}`
    : null;
  return (
    <section>
      <PageHeader
        title={`Analysis ${a.externalId ?? a.id.slice(-8)}`}
        actions={
          workflowUrl && (
            <a class="button-secondary" href={workflowUrl} target="_blank" rel="noreferrer noopener">
              Workflow in Temporal UI ↗
            </a>
          )
        }
      >
        <p class="lead">
          <Link href="/analyses">Analyses</Link> / <ShortId id={a.id} /> <Badge value={a.status} />
        </p>
      </PageHeader>
      <ErrorNotice error={analysis.error} onRetry={analysis.reload} />
      {a.error && (
        <div class="notice notice-error" role="alert">
          <p>
            <strong>Failed: {a.error.code}.</strong> {a.error.message} Its credit was refunded.
          </p>
        </div>
      )}
      <Facts
        items={[
          ['Submitted', <Time value={a.createdAt} />],
          ['Finished', <Time value={a.completedAt} empty={a.status === 'processing' ? 'processing…' : '—'} />],
          ['External id', a.externalId],
          ['Place', a.placeId],
          ['Task', a.taskId && <Link href={`/tasks/${a.taskId}`}>{a.taskId}</Link>],
          ['Batch', a.batchId],
          ['Recognition passes', `${a.completedRuns} of ${a.totalRuns} succeeded`],
          ['Products', `${a.productCount} (${a.totalUnits} facings, value ${a.totalValue.toFixed(2)})`],
          [
            'Metadata',
            a.metadata && Object.keys(a.metadata).length ? (
              <ul class="inline">
                {Object.entries(a.metadata).map(([k, v]) => (
                  <li key={k}>
                    {k}: {v}
                  </li>
                ))}
              </ul>
            ) : null,
          ],
          ['Image URL', <span class="url">{a.imageUrl}</span>],
        ]}
      />
      <h2>Photo</h2>
      <Photo analysis={a} highlight={highlight} onHighlight={setHighlight} />
      <h2>Products</h2>
      {a.products.length === 0 ? (
        <p class="muted">
          {a.status === 'processing'
            ? 'Recognition is running; products appear when it finishes.'
            : 'No product was recognised on this photo.'}
        </p>
      ) : (
        <table class="list products">
          <caption class="visually-hidden">Products found on the photo</caption>
          <thead>
            <tr>
              <th scope="col">#</th>
              <th scope="col">Product</th>
              <th scope="col">Price</th>
              <th scope="col">Facings</th>
              <th scope="col">Match</th>
              <th scope="col">Shelf</th>
              <th scope="col">Confidence</th>
            </tr>
          </thead>
          <tbody>
            {a.products.map((p, i) => (
              <tr
                key={p.id}
                class={highlight === i ? 'row-highlight' : ''}
                onMouseEnter={() => setHighlight(i)}
                onMouseLeave={() => setHighlight(null)}
                onFocusCapture={() => setHighlight(i)}
              >
                <td data-label="#">{i + 1}</td>
                <td data-label="Product">
                  {productName(p)}
                  {p.sku && <div class="muted">SKU {p.sku}</div>}
                </td>
                <td data-label="Price">{priceOf(p)}</td>
                <td data-label="Facings">{p.units}</td>
                <td data-label="Match">
                  <Badge value={p.matchStatus} />
                </td>
                <td data-label="Shelf">{[p.shelfPosition, p.shelfSection].filter(Boolean).join(', ') || '—'}</td>
                <td data-label="Confidence">{p.confidence}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <h2>Deliveries</h2>
      {!can.admin(session) ? (
        <p class="muted">Webhook and callback deliveries are shown to owners (they carry endpoint URLs).</p>
      ) : deliveries.error ? (
        <ErrorNotice error={deliveries.error} onRetry={deliveries.reload} />
      ) : !deliveries.data ? (
        <Loading what="deliveries" />
      ) : deliveries.data.length === 0 ? (
        <p class="muted">
          None: no webhook subscribes to {a.status === 'failed' ? 'analysis.failed' : 'analysis.completed'} and the
          submission gave no callback URL{a.status === 'processing' ? ', or the analysis has not finished' : ''}.{' '}
          <Link href="/webhooks">Add a webhook</Link>.
        </p>
      ) : (
        <DeliveryLog deliveries={deliveries.data} onChanged={deliveries.reload} analysisId={props.id} />
      )}
    </section>
  );
}
