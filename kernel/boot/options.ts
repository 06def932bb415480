import type { AddressInfo } from 'node:net';
import type { Tracer } from '@opentelemetry/api';
import type { AwilixContainer } from 'awilix';
import type { OutboxRelay } from '../audit/outbox-relay.ts';
import type { AuditPipeline } from '../audit/pipeline.ts';
import type { AnyPlugin } from '../define-plugin.ts';
import type { HttpSettings } from '../http/host.ts';
import type { NodeWorkers } from '../http/node-workers.ts';
import type { RateLimit } from '../operations/rate-limiter.ts';
import type { OperationPipeline } from '../operations/pipeline.ts';
import type { Clock } from '../ports/clock.ts';
import type { Door } from '../ports/door.ts';
import type { Logger } from '../ports/logger.ts';
import type { PreflightMode, PreflightNode } from '../preflight.ts';
import type { Deployment } from '../settings/deployment.ts';

/** What the composition root hands the kernel to boot (app/start.ts). */
export interface BootOptions {
  config: Record<string, unknown>;
  /** What the deployment decided, handed to every plugin's `configure` beside its own settings. */
  deployment: Deployment;
  plugins: AnyPlugin[];
  http: HttpSettings;
  preflightMode: PreflightMode;
  /** Checks that belong to the deployment rather than to one plugin (run with the plugins' own). */
  preflight?: PreflightNode[];
  logger: Logger;
  clock: Clock;
  version: string;
  /** The tracer of the started OpenTelemetry SDK; without one, spans are no-ops. */
  tracer?: Tracer;
  /** Per-principal rate limits of the operation pipeline; none when absent. */
  rateLimit?: RateLimit;
  /** Bytes of actor state all detectors together may keep (DEFAULT_STATE_BYTES when absent). */
  detectorStateBytes?: number;
  /** false: start every plugin but open no HTTP listener (the server's own commands, such as rewrap). */
  listen?: boolean;
  /** Where the preflight banner and the boot tree go (stderr). */
  print: (text: string) => void;
  /** Set when this process is one of several workers of the node: /metrics and /readyz then answer for all of them. */
  workers?: NodeWorkers;
  /**
   * Runs the secondary audit sinks on a worker thread instead of the request loop (audit.fanoutThread):
   * `entry` is a module that calls serveFanoutThread with the same plugins and config, `data` its workerData.
   */
  fanoutThread?: { entry: URL; data: Record<string, unknown> };
}

export interface RunningKernel {
  /** Where HTTP listens; undefined when booted with listen: false. */
  address: AddressInfo | undefined;
  container: AwilixContainer;
  audit: AuditPipeline;
  pipeline: OperationPipeline;
  relay: OutboxRelay;
  /** Every started door: the kernel's own (http) first, then the plugins' (none when booted with listen: false). */
  doors: Door[];
  /** https when `http.tls` names a certificate and key. */
  protocol: 'http' | 'https';
  /** Re-reads the TLS files for new connections (SIGHUP); false when the service speaks plain HTTP. */
  reloadTls(): boolean;
  /**
   * Stops doors first, then background work and the audit pipeline, then plugins in reverse start order, metrics last;
   * idempotent, so a second signal changes nothing.
   */
  stop(): Promise<void>;
}
