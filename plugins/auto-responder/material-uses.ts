import { type ActorStateBudget, ActorTable, type AuditRecord, type PrincipalKind } from '../../kernel/index.ts';

/**
 * The operations that can use a key's secret material; Get, Locate and the public key read only metadata or public
 * material.
 */
const MATERIAL_OPERATIONS: ReadonlySet<string> = new Set(['Sign', 'Verify', 'Encrypt', 'Decrypt', 'Wrap', 'Unwrap']);
const MAX_ACTORS = 10_000;
/** Keys remembered per actor; past it the least recently used key is forgotten first. */
const MAX_KEYS_PER_ACTOR = 256;
/** Estimated bytes of one remembered key besides its id string: a Map slot and a number. */
const KEY_OVERHEAD = 48;

type Actor = { kind: PrincipalKind; subject: string };

/**
 * A batch answers 200 (and is audited Success) even when each of its items failed: with every item a
 * failed decrypt or a refusal, it used the material no more than as many failed single calls would.
 */
const everyItemFailed = (r: AuditRecord): boolean =>
  r.context['batch.items'] !== undefined && Number(r.context['batch.failed']) >= Number(r.context['batch.items']);

/** A verification that answered valid (for a batch: at least one item did). */
const verifiedValid = (r: AuditRecord): boolean =>
  r.context['batch.items'] === undefined
    ? r.outcome === 'Success'
    : Number(r.context['batch.items']) -
        Number(r.context['batch.failed'] ?? 0) -
        Number(r.context['batch.invalid'] ?? 0) >
      0;

/**
 * True when the record is a call that completed with the secret material of the key it names. An
 * Export is the fullest use there is: the material left the service. A Verify with a public key (any
 * signature algorithm but HMAC's, as the record's `alg` says) uses what the public key read hands to
 * anyone, so it counts as a read: otherwise an agent allowed to verify with another user's signing key
 * could have it revoked by verifying fast enough. An HMAC Verify uses the material only when it
 * answered valid: anyone can send wrong MACs, so a flood of them (valid: false, audited
 * InvalidSignature) stops the sender, never the key. A batch counts when at least one of its items
 * succeeded (for Verify: answered valid).
 */
export const usedMaterial = (r: AuditRecord): boolean =>
  (MATERIAL_OPERATIONS.has(r.operation) &&
    r.outcome === 'Success' &&
    !everyItemFailed(r) &&
    (r.operation !== 'Verify' || ((r.context.alg ?? '').startsWith('Hmac') && verifiedValid(r)))) ||
  (r.operation === 'Export' && r.outcome === 'Success');

/**
 * When each actor last used each key's material with success, so that a response can tell a key that
 * was really used by the offender from one it only read or was refused on. Bounded like detector state:
 * MAX_ACTORS per principal kind and MAX_KEYS_PER_ACTOR keys each, within the detectors' byte budget.
 */
export class MaterialUses {
  private readonly table: ActorTable<KeyUses>;

  constructor(budget: ActorStateBudget) {
    this.table = new ActorTable<KeyUses>(budget, MAX_ACTORS, () => 64);
  }

  /** Remembers the record's time for its key when it used the key's material with success. */
  note(r: AuditRecord): void {
    if (!usedMaterial(r)) return;
    let uses = this.table.get(r.principal);
    if (uses === undefined) this.table.set(r.principal, (uses = new KeyUses()));
    if (uses.use(r.resource, r.occurredAt)) this.table.grew(r.principal, KEY_OVERHEAD + 2 * r.resource.length);
  }

  /** True when the actor used the key's material with success at `sinceMs` or later. */
  usedSince(actor: Actor, keyId: string, sinceMs: number): boolean {
    const at = this.table.peek(actor)?.at.get(keyId);
    // Records' times are ISO 8601 UTC with milliseconds, which order as their text does.
    return at !== undefined && at >= new Date(sinceMs).toISOString();
  }
}

/**
 * One actor's keys and when it last used each (the record's occurredAt), least recently used first. An
 * actor mostly uses one key again and again: that use only updates the time, with no reordering.
 */
class KeyUses {
  readonly at = new Map<string, string>();
  private last: string | undefined;

  /** Records a use; true when the key is new to this actor (its memory grew). */
  use(keyId: string, occurredAt: string): boolean {
    if (keyId === this.last) {
      this.at.set(keyId, occurredAt);
      return false;
    }
    const known = this.at.delete(keyId);
    this.at.set(keyId, occurredAt); // re-inserted: Map order stays least recently used first
    this.last = keyId;
    if (known) return false;
    if (this.at.size > MAX_KEYS_PER_ACTOR) {
      this.at.delete(this.at.keys().next().value!);
      return false;
    }
    return true;
  }
}
