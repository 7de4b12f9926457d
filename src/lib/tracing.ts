import { AsyncLocalStorage } from 'node:async_hooks';
import { SpanKind, SpanStatusCode, trace, type Span } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { Resource } from '@opentelemetry/resources';
import {
  BatchSpanProcessor,
  SimpleSpanProcessor,
  type SpanExporter,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';

/**
 * OpenTelemetry tracing, off unless OTEL_EXPORTER_OTLP_ENDPOINT is set (or a test passes an
 * exporter): then one trace runs from the API request through the workflow start, the workflow,
 * each activity and the outbound image fetch or webhook POST (Temporal's OpenTelemetry interceptors
 * carry the context across). Off, nothing is installed: no middleware, no interceptors, no spans.
 */
let state: { processor: SpanProcessor; resource: Resource; provider: NodeTracerProvider } | null = null;

export function initTracing(serviceName: string, opts: { endpoint?: string; exporter?: SpanExporter } = {}): boolean {
  if (state) return true;
  if (!opts.exporter && !opts.endpoint) return false;
  const resource = new Resource({ 'service.name': serviceName });
  // A test's in-memory exporter gets each span at once; the OTLP exporter gets them in batches.
  const processor = opts.exporter
    ? new SimpleSpanProcessor(opts.exporter)
    : new BatchSpanProcessor(new OTLPTraceExporter({ url: `${opts.endpoint!.replace(/\/$/, '')}/v1/traces` }));
  const provider = new NodeTracerProvider({ resource, spanProcessors: [processor] });
  provider.register();
  state = { processor, resource, provider };
  return true;
}

export function tracingEnabled(): boolean {
  return state !== null;
}

/** What the worker needs to export workflow spans (they are made in the sandbox and sent by a sink). */
export function tracingExport(): { processor: SpanProcessor; resource: Resource } | null {
  return state && { processor: state.processor, resource: state.resource };
}

export async function shutdownTracing(): Promise<void> {
  await state?.provider.shutdown();
  state = null;
}

export const tracer = () => trace.getTracer('shelf-analysis-service');

/** A client span around outbound HTTP (image fetch, webhook POST); free when tracing is off. */
export async function withClientSpan<T>(
  name: string,
  attributes: Record<string, string | number>,
  fn: (span: Span | null) => Promise<T>,
): Promise<T> {
  if (!state) return fn(null);
  return tracer().startActiveSpan(name, { kind: SpanKind.CLIENT, attributes }, async (span) => {
    try {
      return await fn(span);
    } catch (err) {
      span.recordException(err as Error);
      span.setStatus({ code: SpanStatusCode.ERROR });
      throw err;
    } finally {
      span.end();
    }
  });
}

/** The id of the API request being served, for log lines and the workflow memo. */
export const requestIds = new AsyncLocalStorage<string>();

/** `trace_id` (when a span is active) and `requestId` (inside a request) for every log line. */
export function logContext(): Record<string, string> {
  const out: Record<string, string> = {};
  const span = state ? trace.getActiveSpan() : undefined;
  if (span) out.trace_id = span.spanContext().traceId;
  const requestId = requestIds.getStore();
  if (requestId) out.requestId = requestId;
  return out;
}
