import type { Static } from '@sinclair/typebox';
import {
  type AccessKeyRecord,
  type AccessKeyStore,
  AccessKeyIdTaken,
  AccessKeyLimitReached,
  type Clock,
  isAccessKeyId,
  type OperationCall,
  type Principal,
  requireCallerText,
  reservedSubjectProblem,
  type RootOfTrust,
  SvcError,
} from '../../kernel/index.ts';
import type * as S from '../../schemas/access-keys.ts';
import { newAccessKeyId, newSecret, secretText } from './access-key-material.ts';

/** The most live access keys one principal (a kind and a subject) may hold. */
export const MAX_ACCESS_KEYS_PER_PRINCIPAL = 10;

/** How often a create is tried again with a new id when its id was taken (80 random bits: never, in practice). */
const ID_ATTEMPTS = 3;

type PrincipalView = Static<typeof S.AccessKeyPrincipal>;

/** What a caller sees of a key's principal: never its groups (a snapshot the policy reads) or anything else. */
export const principalView = (p: Principal): PrincipalView => ({
  kind: p.kind as PrincipalView['kind'],
  subject: p.subject,
});

/**
 * Access keys' life: made by a Human for itself or for a Service it names, listed, deleted. The secret
 * exists in the clear only in the answer to its create: it is sealed under the root of trust before it is
 * stored, and the key's record commits with its audit record (the journal's outbox), which names the key and
 * its principal, never the secret.
 */
export class AccessKeyIssuer {
  constructor(
    private readonly store: AccessKeyStore,
    private readonly rootOfTrust: RootOfTrust,
    private readonly clock: Clock,
  ) {}

  async create(call: OperationCall, service: string | undefined): Promise<Static<typeof S.CreateAccessKeyResponse>> {
    const principal = this.principalFor(call.principal, service);
    const view = principalView(principal);
    const secret = newSecret();
    try {
      for (let attempt = 1; ; attempt++) {
        const accessKeyId = newAccessKeyId();
        const record: AccessKeyRecord = {
          accessKeyId,
          principal,
          sealedSecret: await this.rootOfTrust.wrap(secret, accessKeyId, { trace: call.trace }),
          createdAt: this.clock.now().toISOString(),
          createdBy: call.principal.subject,
        };
        const audit = call.successRecord({
          resource: `access-key:${accessKeyId}`,
          context: { accessKeyId, 'accessKey.principal': view.subject, 'accessKey.principalKind': view.kind },
        });
        try {
          await this.store.create(record, { maxPerPrincipal: MAX_ACCESS_KEYS_PER_PRINCIPAL, audit });
        } catch (err) {
          if (err instanceof AccessKeyIdTaken && attempt < ID_ATTEMPTS) continue;
          if (err instanceof AccessKeyLimitReached)
            throw new SvcError(
              'IllegalOperation',
              `${view.kind} ${view.subject} already holds ${MAX_ACCESS_KEYS_PER_PRINCIPAL} access keys, the most ` +
                'one principal may hold: delete one it no longer uses (DELETE /v1/access-keys/{accessKeyId}) first',
            );
          throw err;
        }
        call.journaled(audit);
        return { accessKeyId, secretAccessKey: secretText(secret), principal: view, createdAt: record.createdAt };
      }
    } finally {
      secret.fill(0);
    }
  }

  /** One page of keys by id; `nextAfter` when there may be more (the last key shown). */
  async list(filter: { principal?: string; after?: string; limit: number }): Promise<Static<typeof S.AccessKeyList>> {
    const found = await this.store.list({ ...filter, limit: filter.limit + 1 });
    const page = found.slice(0, filter.limit).map((r) => ({
      accessKeyId: r.accessKeyId,
      principal: principalView(r.principal),
      createdAt: r.createdAt,
      createdBy: r.createdBy,
    }));
    return found.length > filter.limit
      ? { accessKeys: page, nextAfter: page.at(-1)!.accessKeyId }
      : { accessKeys: page };
  }

  /** Deletes a key: every node refuses it from its next signed call. NotFound for an unknown id. */
  async remove(call: OperationCall, accessKeyId: string): Promise<Static<typeof S.DeleteAccessKeyResponse>> {
    const unknown = () => new SvcError('NotFound', `no access key ${accessKeyId}`);
    // Text of another form names no key: answered without a read.
    if (!isAccessKeyId(accessKeyId)) throw unknown();
    const found = await this.store.get(accessKeyId);
    if (!found) throw unknown();
    const view = principalView(found.principal);
    const audit = call.successRecord({
      context: { accessKeyId, 'accessKey.principal': view.subject, 'accessKey.principalKind': view.kind },
    });
    // A delete on another node meanwhile: this one changed nothing, so it has no success to record.
    if (!(await this.store.remove(accessKeyId, audit))) throw unknown();
    call.journaled(audit);
    return { accessKeyId, deleted: true, principal: view };
  }

  /**
   * Whom the key will act as: the calling Human (its subject and groups now; never its credential), or the
   * Service it names. Agents never reach here (the operation is Human only); checked again, as it mints a credential.
   */
  private principalFor(caller: Principal, service: string | undefined): Principal {
    if (caller.kind !== 'Human')
      throw new SvcError('PermissionDenied', `only a Human creates access keys; ${caller.kind} callers are refused`);
    if (service === undefined) return { kind: 'Human', subject: caller.subject, groups: [...caller.groups] };
    requireCallerText(service, 'service');
    if (service.trim() === '') throw new SvcError('InvalidField', 'service must name a Service: it is blank');
    if (service.length > 256) throw new SvcError('InvalidField', 'service must be at most 256 characters');
    const reserved = reservedSubjectProblem(service);
    if (reserved) throw new SvcError('InvalidField', `service cannot be ${JSON.stringify(service)}: ${reserved}`);
    return { kind: 'Service', subject: service, groups: [] };
  }
}
