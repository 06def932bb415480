import { ROOT_CONTEXT, SpanStatusCode, trace, type Context, type Span, type Tracer } from '@opentelemetry/api';
import type { Principal } from '../model/index.ts';

/**
 * Child spans of one operation's `kms.<operation>` span, carried explicitly by the pipeline's call (no
 * async-local context): the key service wraps its journal, root-of-trust and audit work in `child`.
 */
export interface TraceScope {
  child<T>(name: string, work: () => Promise<T>): Promise<T>;
}

/** For work outside any operation (start-up, tests): runs it, traces nothing. */
export const UNTRACED: TraceScope = { child: (_name, work) => work() };

/** What the pipeline needs of an operation's span. */
export interface OperationTrace extends TraceScope {
  readonly recording: boolean;
  end(principal: Principal | undefined, resource: string | undefined, outcome: string, message?: string): void;
}

/** The span of every operation while tracing is off: one shared object, nothing allocated per call. */
export const NO_SPAN: OperationTrace = { recording: false, child: (_name, work) => work(), end: () => {} };

/**
 * The span of one operation (kms.<operation>, with svc.operation, svc.principal.*, svc.key.id, svc.outcome). When the
 * tracer does not record (no exporter, or not
 * sampled) `child` calls straight through, so an untraced request pays nothing for its child spans.
 */
export class OperationSpan implements OperationTrace {
  private readonly span: Span;
  private readonly parent: Context | undefined;
  /** False when nothing records this span: callers may skip building child-span closures. */
  readonly recording: boolean;

  constructor(
    private readonly tracer: Tracer,
    operation: string,
  ) {
    this.span = tracer.startSpan(`kms.${operation}`, { attributes: { 'svc.operation': operation } }, ROOT_CONTEXT);
    this.recording = this.span.isRecording();
    this.parent = this.recording ? trace.setSpan(ROOT_CONTEXT, this.span) : undefined;
  }

  child<T>(name: string, work: () => Promise<T>): Promise<T> {
    if (!this.parent) return work();
    const span = this.tracer.startSpan(name, undefined, this.parent);
    return work().then(
      (value) => {
        span.end();
        return value;
      },
      (err: unknown) => {
        span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error)?.message });
        span.end();
        throw err;
      },
    );
  }

  end(principal: Principal | undefined, resource: string | undefined, outcome: string, message?: string): void {
    if (!this.parent) {
      this.span.end();
      return;
    }
    if (principal) {
      this.span.setAttribute('svc.principal.subject', principal.subject);
      this.span.setAttribute('svc.principal.kind', principal.kind.toLowerCase());
    }
    if (resource) this.span.setAttribute('svc.key.id', resource);
    this.span.setAttribute('svc.outcome', outcome === 'Success' ? 'success' : `error_${outcome}`);
    if (outcome !== 'Success') this.span.setStatus({ code: SpanStatusCode.ERROR, message: message ?? outcome });
    this.span.end();
  }
}
