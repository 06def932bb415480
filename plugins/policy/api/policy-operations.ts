import {
  type Clock,
  defineOperation,
  type Policy,
  type PolicyDocument,
  type PolicyVersion,
  SvcError,
} from '../../../kernel/index.ts';
import { GetPolicyParams, PolicyAnswer, PutPolicyBody } from '../../../schemas/policy.ts';
import { LiveRoleBasedPolicy } from '../role-based/live-policy.ts';
import { policyDiff } from '../role-based/policy-diff.ts';
import { ifMatches, policyEtag } from '../role-based/policy-etag.ts';
import { bindingProblems, type Bindings } from '../role-based/role-policy.ts';
import { administrationProblems, MAX_POLICY_DOCUMENT_BYTES } from './policy-checks.ts';

/** The policy as GET and PUT answer it. */
const answer = (version: PolicyVersion) => ({
  version: version.version,
  etag: policyEtag(version),
  roleBindings: version.document.roleBindings,
  subjectBindings: version.document.subjectBindings,
});

const ETAG_HEADER = {
  ETag: {
    description: 'the version answered; send it as If-Match to change the policy',
    value: (result: unknown) => (result as { etag?: string } | undefined)?.etag,
  },
};

/** The live role-based policy, or 409 saying why there is none to read or change. */
function livePolicy(policy: Policy): LiveRoleBasedPolicy {
  if (policy instanceof LiveRoleBasedPolicy) return policy;
  throw new SvcError(
    'IllegalOperation',
    'the policy can be read and changed only with role-based policy (policy.kind role-based); this ' +
      'deployment runs policy.kind dev, which has no bindings: every Human may do everything',
  );
}

/** The stored latest version, applied here too if this node had not yet. */
async function latest(live: LiveRoleBasedPolicy): Promise<PolicyVersion> {
  const stored = await live.store.latest();
  if (!stored) throw new SvcError('ServiceUnavailable', 'the journal holds no policy version yet; retry shortly');
  live.apply(stored);
  return stored;
}

const stale = (why: string) =>
  new SvcError(
    'PreconditionFailed',
    `${why}: GET /v1/policy, make the change to what it answers, and PUT with its ETag`,
  );

/** GET and PUT /v1/policy over the role-based policy's versions in the journal. */
export function policyOperations(policy: Policy, clock: Clock) {
  return [
    defineOperation({
      id: 'GetPolicy',
      operation: 'Query',
      description:
        "Read the role-based policy's bindings as they are stored now: version, ETag (also the ETag " +
        'header) and the role and subject bindings. Changes nothing. Needs Query on the resource ' +
        "policy; 409 IllegalOperation when the deployment's policy is not role-based.",
      group: 'Policy',
      summary: 'Read the role-based policy (bindings, version, ETag)',
      errors: ['IllegalOperation'],
      input: GetPolicyParams,
      output: PolicyAnswer,
      http: { method: 'GET', path: '/v1/policy', responseHeaders: ETAG_HEADER },
      // Policy administration is an operator's, never a model's.
      attributes: { readOnly: true, toolName: false },
      resource: () => 'policy',
      handle: async () => ({ result: answer(await latest(livePolicy(policy))) }),
    }),
    defineOperation({
      id: 'PutPolicy',
      operation: 'Administer',
      description:
        "Replace the role-based policy's bindings with new ones, as the next version, applied on every " +
        'node within 2 s. If-Match must carry the ETag of the latest version (GET /v1/policy): 412 ' +
        'PreconditionFailed when it is missing or another change came first. Bad bindings are 400 ' +
        'InvalidField naming each, and nothing changes. Human callers only; audited with the version and ' +
        'a summary of what changed.',
      group: 'Policy',
      summary: 'Replace the role-based policy, If-Match its ETag (Human only)',
      errors: ['IllegalOperation', 'PreconditionFailed'],
      input: PutPolicyBody,
      output: PolicyAnswer,
      http: {
        method: 'PUT',
        path: '/v1/policy',
        requestHeaders: { ifMatch: 'If-Match' },
        responseHeaders: ETAG_HEADER,
      },
      attributes: { humanOnly: true, toolName: false },
      resource: () => 'policy',
      handle: async (input, call) => {
        const live = livePolicy(policy);
        const document: PolicyDocument = { roleBindings: input.roleBindings, subjectBindings: input.subjectBindings };
        const bytes = Buffer.byteLength(JSON.stringify(document));
        if (bytes > MAX_POLICY_DOCUMENT_BYTES)
          throw new SvcError(
            'PayloadTooLarge',
            `the policy document is ${bytes} bytes; at most ${MAX_POLICY_DOCUMENT_BYTES} are stored. Nothing changed`,
          );
        if (input.ifMatch === undefined) throw stale('If-Match is missing');
        const problems = [
          ...bindingProblems(document.roleBindings as Bindings, document.subjectBindings as Bindings),
          ...administrationProblems(document),
        ];
        if (problems.length)
          throw new SvcError('InvalidField', `nothing changed, ${problems.length} problem(s): ${problems.join('; ')}`);
        const current = await latest(live);
        if (!ifMatches(input.ifMatch, policyEtag(current)))
          throw stale(`If-Match does not name the latest version (${current.version}, ETag ${policyEtag(current)})`);
        const version = current.version + 1;
        const record = call.successRecord({
          context: { 'policy.version': String(version), 'policy.diff': policyDiff(current.document, document) },
        });
        const next = { document, createdAt: clock.now().toISOString(), createdBy: call.principal.subject };
        if (!(await live.store.put(next, current.version, record)))
          throw stale(`another change was stored as version ${version} first`);
        call.journaled(record);
        const written: PolicyVersion = { ...next, version };
        // This node decides with it before answering: the caller's next call, here, obeys it.
        live.apply(written);
        return { result: answer(written) };
      },
    }),
  ];
}
