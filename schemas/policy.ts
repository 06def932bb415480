import { Type } from '@sinclair/typebox';

// A binding is checked by the policy, which names every bad one at once (400 InvalidField): the schema
// admits any value so that the first bad binding does not hide the others behind one BadRequest.
const Bindings = (description: string) => Type.Record(Type.String(), Type.Unknown(), { description });

const ROLE_BINDINGS =
  'group -> a list of Operation names (on every key and every other resource), or {operations, keys: ' +
  '[owner:self | name:GLOB | id:UUID], agents: ["*" | agent id]} with keys, agents or both';
const SUBJECT_BINDINGS = 'subject -> a binding, as in roleBindings';

export const GetPolicyParams = Type.Object({}, { additionalProperties: false, title: 'GetPolicyRequest' });

export const PutPolicyBody = Type.Object(
  {
    roleBindings: Bindings(ROLE_BINDINGS),
    subjectBindings: Bindings(SUBJECT_BINDINGS),
    ifMatch: Type.Optional(
      Type.String({
        description: 'The ETag of the version this change was made to (GET /v1/policy): 412 when it is not the latest',
        maxLength: 1024,
      }),
    ),
  },
  { additionalProperties: false, title: 'PutPolicyRequest' },
);

export const PolicyAnswer = Type.Object(
  {
    version: Type.Integer({ description: 'the stored version: 1 is the configured bindings, each PUT adds one' }),
    etag: Type.String({ description: 'as the ETag header: send it as If-Match to change this version' }),
    roleBindings: Bindings(ROLE_BINDINGS),
    subjectBindings: Bindings(SUBJECT_BINDINGS),
  },
  { title: 'Policy' },
);
