import { randomUUID } from 'node:crypto';
import {
  boundRecord,
  type Clock,
  type KeyScope,
  type Lifecycle,
  type Logger,
  type Operation,
  type Policy,
  type PolicyDecision,
  type PolicyDocument,
  type PolicyStore,
  type PolicyVersion,
  type Principal,
  type ResourceFacts,
  SYSTEM_PRINCIPAL,
  auditIdentity,
} from '../../../kernel/index.ts';
import type { Bindings } from './bindings.ts';
import { bindingChanges, policyDiff } from './policy-diff.ts';
import { bindingProblems, RoleBasedPolicy } from './role-policy.ts';

/** A stored version and the policy compiled from it: swapped as one reference, never field by field. */
interface Applied {
  version: PolicyVersion;
  policy: RoleBasedPolicy;
}

export interface LivePolicyOptions {
  store: PolicyStore;
  /** The configured bindings: version 1 when the store holds none, ignored otherwise. */
  seed: PolicyDocument;
  /** How often the store's latest version number is read. */
  refreshMs: number;
  logger: Logger;
  clock: Clock;
}

const compile = (document: PolicyDocument) =>
  new RoleBasedPolicy(document.roleBindings as Bindings, document.subjectBindings as Bindings);

/**
 * Role-based policy whose bindings live in the journal, versioned (PUT /v1/policy writes them). Every
 * decision is made by one compiled version: the applied one is a single reference, replaced whole when a
 * newer version is applied, so a call's `authorize` (synchronous) sees the old bindings or the new ones,
 * never some of each. Nodes learn of a new version by reading the store's latest version number every
 * `refreshMs` (one primary-key lookup, the same on every backend, SQLite's worker processes included),
 * so a version written on one node is applied on every other within refreshMs plus one read; the node
 * that wrote it applies it before answering. Versions only move forward while the node runs: a journal
 * restored to an older version is read at the next start.
 */
export class LiveRoleBasedPolicy implements Policy, Lifecycle {
  private applied: Applied;
  private timer: NodeJS.Timeout | undefined;
  private polling: Promise<void> | undefined;
  private stopped = false;
  /** A refresh failed and has not succeeded since: logged once per streak, not once per second. */
  private failing = false;
  /** The newest version refused for bad bindings: not compiled, nor logged, again at every refresh. */
  private refused = 0;

  constructor(private readonly options: LivePolicyOptions) {
    // Until start() reads the store: the configuration (no call is served before the plugins start).
    this.applied = {
      version: { version: 0, document: options.seed, createdAt: '', createdBy: 'configuration' },
      policy: compile(options.seed),
    };
  }

  get store(): PolicyStore {
    return this.options.store;
  }

  /** The version this node decides with. */
  get version(): PolicyVersion {
    return this.applied.version;
  }

  /** The pipeline reads it for each call: it follows the applied version's bindings. */
  get usesResourceFacts(): boolean {
    return this.applied.policy.usesResourceFacts;
  }

  authorize(principal: Principal, operation: Operation, resource: string, facts?: ResourceFacts): PolicyDecision {
    return this.applied.policy.authorize(principal, operation, resource, facts);
  }

  mayEver(principal: Principal, operation: Operation): boolean {
    return this.applied.policy.mayEver(principal, operation);
  }

  keyScope(principal: Principal, operation: Operation): KeyScope {
    return this.applied.policy.keyScope(principal, operation);
  }

  async start(): Promise<void> {
    this.stopped = false;
    let latest = await this.options.store.latest();
    if (!latest) {
      await this.seed();
      latest = await this.options.store.latest();
    }
    if (!latest) throw new Error('policy: the journal holds no policy version right after seeding it');
    // At start the stored latest applies whatever this process held: it may be older (a restored journal).
    // Failing closed: a node never decides with bindings other than the journal's latest (the log says why).
    if (!this.replace(latest))
      throw new Error(`policy: version ${latest.version} in the journal has bad bindings (logged); not starting`);
    // An operator who edits the configured bindings of a seeded deployment is told where they live now.
    const ignored = bindingChanges(latest.document, this.options.seed);
    if (ignored.length)
      this.options.logger.warn("policy: the configured bindings differ from the journal's, which apply", {
        version: latest.version,
        createdBy: latest.createdBy,
        createdAt: latest.createdAt,
        advice: 'the configuration only seeds an empty journal; change the bindings with PUT /v1/policy',
      });
    this.schedule();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.polling;
  }

  /**
   * Applies `version` when it is newer than the applied one (a PUT's own write, a GET's read, a refresh);
   * an older or equal one changes nothing. True when it is (now) applied or older; false when its bindings
   * do not compile, which PUT's checks make impossible unless another program wrote the row.
   */
  apply(version: PolicyVersion): boolean {
    if (version.version <= this.applied.version.version) return true;
    if (version.version === this.refused) return false;
    return this.replace(version);
  }

  /** Reads the store's latest version number, and applies that version when it is newer than the applied one. */
  async refresh(): Promise<void> {
    if ((await this.options.store.latestVersion()) <= this.applied.version.version) return;
    const latest = await this.options.store.latest();
    if (latest) this.apply(latest);
  }

  private replace(version: PolicyVersion): boolean {
    const { roleBindings, subjectBindings } = version.document;
    const problems = bindingProblems(roleBindings as Bindings, subjectBindings as Bindings);
    if (problems.length) {
      this.refused = version.version;
      this.options.logger.error('policy: a stored version has bad bindings and is not applied', {
        version: version.version,
        applied: this.applied.version.version,
        problems,
      });
      return false;
    }
    const previous = this.applied.version.version;
    this.applied = { version, policy: compile(version.document) };
    if (previous !== 0) this.options.logger.info('policy: applied a new version', { version: version.version });
    return true;
  }

  /**
   * Writes the configured bindings as version 1, audited as the system's change; a node that lost the race
   * to another node starting at the same time reads the winner's.
   */
  private async seed(): Promise<void> {
    const identity = auditIdentity(this.options.clock.now());
    const audit = boundRecord({
      ...identity,
      principal: { subject: SYSTEM_PRINCIPAL.subject, kind: SYSTEM_PRINCIPAL.kind },
      operation: 'Administer',
      resource: 'policy',
      outcome: 'Success',
      context: {
        door: 'internal',
        'policy.version': '1',
        'policy.diff': policyDiff(undefined, this.options.seed),
        'policy.source': 'configuration',
      },
      correlationId: randomUUID(),
    });
    const seed = { document: this.options.seed, createdAt: identity.occurredAt, createdBy: 'configuration' };
    if (await this.options.store.put(seed, 0, audit))
      this.options.logger.info('policy: seeded version 1 from the configured bindings');
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.polling = this.refresh()
        .then(() => {
          if (this.failing) this.options.logger.info('policy: refresh works again');
          this.failing = false;
        })
        .catch((err: unknown) => {
          if (!this.failing)
            this.options.logger.warn('policy: cannot read the latest version; the applied one stays in force', {
              version: this.applied.version.version,
              error: (err as Error).message,
            });
          this.failing = true;
        })
        .finally(() => {
          this.polling = undefined;
          this.schedule();
        });
    }, this.options.refreshMs);
    // The timer alone never keeps the process alive: stop() ends it, and a process exiting needs no refresh.
    this.timer.unref();
  }
}
