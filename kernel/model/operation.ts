/** The operations the service performs; policy, scopes, audit rows and metrics all speak in these names. */
export const OPERATIONS = [
  'Create',
  'Get',
  'Locate',
  'Activate',
  'Revoke',
  'Destroy',
  'Sign',
  'Verify',
  'Encrypt',
  'Decrypt',
  'Wrap',
  'Unwrap',
  'Rotate',
  'Compromise',
  'Query',
  'GetAttributes',
  'AddAttribute',
  'Export',
  'Disable',
  'Enable',
  'Administer',
] as const;

export type Operation = (typeof OPERATIONS)[number];

const known = new Set<string>(OPERATIONS);

export function isOperation(name: string): name is Operation {
  return known.has(name);
}

/** Operations that change a key for good; the risk step treats them more strictly. */
export const DESTRUCTIVE_OPERATIONS: ReadonlySet<Operation> = new Set(['Rotate', 'Compromise', 'Destroy', 'Revoke']);
