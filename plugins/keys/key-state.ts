import { type KeyEvent, type KeyState, type ManagedKey, type StoredEvent, SvcError } from '../../kernel/index.ts';

/** Applies one event to a key's state; the journal's replay is this fold over every event. */
export function applyEvent(key: ManagedKey | undefined, stored: StoredEvent): ManagedKey {
  const e = stored.event;
  if (e.type === 'KeyCreated') {
    // Keys created before export existed have no `exportable` in their spec: they are not exportable.
    const spec = e.spec.exportable === undefined ? { ...e.spec, exportable: false } : e.spec;
    return { id: stored.keyId, spec, owner: e.owner ?? e.by, ...(e.tenant ? { tenant: e.tenant } : {}), origin: e.origin ?? 'generated', state: 'PreActive', currentVersion: 1, createdAt: e.at, rotationPolicy: 'Manual', versions: { 1: { createdAt: e.at, materialId: e.materialId } }, seq: stored.seq };
  }
  if (!key) throw new Error(`journal of key ${stored.keyId} does not start with KeyCreated`);
  const next: ManagedKey = { ...key, seq: stored.seq };
  switch (e.type) {
    case 'KeyActivated': return { ...next, state: 'Active', activatedAt: e.at };
    case 'Rotated': return { ...next, currentVersion: e.newVersion, rotatedAt: e.at, rotationPolicy: e.policy, versions: { ...key.versions, [e.newVersion]: { createdAt: e.at, materialId: e.materialId } } };
    case 'Revoked': return { ...next, state: 'Deactivated', revokedAt: e.at, ...(e.reason ? { reason: e.reason } : {}) };
    case 'Compromised': return { ...next, state: 'Compromised', compromisedAt: e.at, reason: e.reason };
    case 'Destroyed': return { ...next, state: 'Destroyed', destroyedAt: e.at };
  }
}

export function foldEvents(events: StoredEvent[]): ManagedKey | undefined {
  return events.reduce<ManagedKey | undefined>(applyEvent, undefined);
}

type Transition = Exclude<KeyEvent['type'], 'KeyCreated'>;

/** Source states of each transition. */
const SOURCES: Record<Transition, KeyState[]> = {
  KeyActivated: ['PreActive'],
  Rotated: ['Active'],
  Revoked: ['Active'],
  Compromised: ['PreActive', 'Active', 'Deactivated'],
  Destroyed: ['PreActive', 'Deactivated', 'Compromised'],
};

const VERB: Record<Transition, string> = { KeyActivated: 'activated', Rotated: 'rotated', Revoked: 'revoked', Compromised: 'compromised', Destroyed: 'destroyed' };

export function requireTransition(key: ManagedKey, transition: Transition): void {
  if (!SOURCES[transition].includes(key.state)) {
    throw new SvcError('IllegalOperation', `key ${key.id} is ${key.state} and cannot be ${VERB[transition]} (allowed from ${SOURCES[transition].join(', ')})`);
  }
}

/** What each state permits: producing output needs Active; reading old output also allows Deactivated. */
export function requireUsable(key: ManagedKey, use: 'produce' | 'consume', operation: string): void {
  const ok = key.state === 'Active' || (use === 'consume' && key.state === 'Deactivated');
  if (!ok) throw new SvcError('IllegalOperation', `key ${key.id} is ${key.state}; ${operation} is not allowed in that state`);
}
