import {
  type KeyTransition,
  type ManagedKey,
  type StoredEvent,
  SvcError,
  tagsAfter,
  TRANSITION_SOURCES,
  USABLE_STATES,
  WHILE_SCHEDULED,
} from '../../kernel/index.ts';

/** Applies one event to a key's state; the journal's replay is this fold over every event. */
export function applyEvent(key: ManagedKey | undefined, stored: StoredEvent): ManagedKey {
  const e = stored.event;
  if (e.type === 'KeyCreated') {
    // Keys created before export existed have no `exportable` in their spec: they are not exportable.
    const spec = e.spec.exportable === undefined ? { ...e.spec, exportable: false } : e.spec;
    return {
      id: stored.keyId,
      spec,
      owner: e.owner ?? e.by,
      ...(e.tenant ? { tenant: e.tenant } : {}),
      origin: e.origin ?? 'generated',
      ...(e.awaitingMaterial ? { awaitingMaterial: true } : {}),
      state: 'PreActive',
      currentVersion: 1,
      createdAt: e.at,
      rotationPolicy: 'Manual',
      versions: { 1: { createdAt: e.at, materialId: e.materialId } },
      enabled: true,
      tags: e.spec.tags ? { ...e.spec.tags } : {},
      seq: stored.seq,
    };
  }
  if (!key) throw new Error(`journal of key ${stored.keyId} does not start with KeyCreated`);
  const next: ManagedKey = { ...key, seq: stored.seq };
  switch (e.type) {
    case 'KeyActivated':
      return { ...next, state: 'Active', activatedAt: e.at };
    case 'MaterialImported': {
      const { awaitingMaterial: _, ...imported } = next;
      return { ...imported, versions: { ...key.versions, 1: { ...key.versions[1]!, materialId: e.materialId } } };
    }
    case 'Rotated':
      return {
        ...next,
        currentVersion: e.newVersion,
        rotatedAt: e.at,
        rotationPolicy: e.policy,
        versions: { ...key.versions, [e.newVersion]: { createdAt: e.at, materialId: e.materialId } },
      };
    case 'Revoked':
      return { ...next, state: 'Deactivated', revokedAt: e.at, ...(e.reason ? { reason: e.reason } : {}) };
    case 'Compromised':
      return { ...next, state: 'Compromised', compromisedAt: e.at, reason: e.reason };
    case 'Destroyed':
      return { ...withoutSchedule(next), state: 'Destroyed', destroyedAt: e.at };
    case 'DestroyScheduled':
      return { ...next, destroyAt: e.destroyAt };
    case 'DestroyCancelled':
      return withoutSchedule(next);
    case 'VersionsTrimmed':
      return { ...next, minVersion: e.minVersion };
    case 'KeyDisabled': {
      const disabled = { ...next, enabled: false, disabledAt: e.at };
      if (e.reason) disabled.disabledReason = e.reason;
      else delete disabled.disabledReason;
      return disabled;
    }
    case 'KeyEnabled': {
      const { disabledAt: _at, disabledReason: _reason, ...enabled } = next;
      return { ...enabled, enabled: true };
    }
    case 'TagsChanged':
      return { ...next, tags: tagsAfter(key.tags, e) };
  }
}

function withoutSchedule(key: ManagedKey): ManagedKey {
  const { destroyAt: _destroyAt, ...rest } = key;
  return rest;
}

export function foldEvents(events: StoredEvent[]): ManagedKey | undefined {
  return events.reduce<ManagedKey | undefined>(applyEvent, undefined);
}

const VERB: Record<KeyTransition, string> = {
  KeyActivated: 'activated',
  MaterialImported: 'given its imported material',
  Rotated: 'rotated',
  Revoked: 'revoked',
  Compromised: 'compromised',
  Destroyed: 'destroyed',
  DestroyScheduled: 'scheduled for destruction',
  DestroyCancelled: 'spared its destruction',
  VersionsTrimmed: 'trimmed',
  KeyDisabled: 'disabled',
  KeyEnabled: 'enabled',
  TagsChanged: 'tagged',
};

export function requireTransition(key: ManagedKey, transition: KeyTransition): void {
  if (key.destroyAt && !WHILE_SCHEDULED.includes(transition)) {
    throw new SvcError(
      'IllegalOperation',
      `key ${key.id} is scheduled for destruction at ${key.destroyAt} and cannot be ${VERB[transition]}; a Human may cancel the destruction first (POST /v1/keys/${key.id}/cancel-destroy)`,
    );
  }
  if (!TRANSITION_SOURCES[transition].includes(key.state)) {
    throw new SvcError(
      'IllegalOperation',
      `key ${key.id} is ${key.state} and cannot be ${VERB[transition]} (allowed from ${TRANSITION_SOURCES[transition].join(', ')})`,
    );
  }
}

/** What each state permits: producing output needs Active; reading old output also allows Deactivated. */
export function requireUsable(key: ManagedKey, use: 'produce' | 'consume', operation: string): void {
  requireEnabled(key, operation);
  const ok = USABLE_STATES[use].includes(key.state);
  if (!ok)
    throw new SvcError('IllegalOperation', `key ${key.id} is ${key.state}; ${operation} is not allowed in that state`);
  requireNotScheduled(key, operation);
}

/**
 * A key waiting for its scheduled destruction serves no cryptographic call (nor its public key): whoever still depends
 * on it finds out while it can be cancelled.
 */
export function requireNotScheduled(key: ManagedKey, operation: string): void {
  if (key.destroyAt)
    throw new SvcError(
      'IllegalOperation',
      `key ${key.id} is scheduled for destruction at ${key.destroyAt}; ${operation} is refused until a Human cancels the destruction`,
    );
}

/**
 * A disabled key serves no cryptographic call, public key or export until a Human enables it: the pause an
 * incident responder (or the auto-responder) takes when not yet sure the key is lost.
 */
export function requireEnabled(key: ManagedKey, operation: string): void {
  if (!key.enabled)
    throw new SvcError(
      'IllegalOperation',
      `key ${key.id} is disabled${key.disabledAt ? ` since ${key.disabledAt}` : ''}; ${operation} is refused until a Human enables it (POST /v1/keys/${key.id}/enable)`,
    );
}

/** A version below the key's minVersion was trimmed: its material is gone for good. */
export function requireNotTrimmed(key: ManagedKey, version: number): void {
  if (key.minVersion !== undefined && version < key.minVersion) {
    throw new SvcError(
      'IllegalOperation',
      `version ${version} of key ${key.id} was trimmed (versions below ${key.minVersion} are erased for good)`,
    );
  }
}
