export * from './operation.ts';
export * from './principal.ts';
export * from './key-spec.ts';
export * from './managed-key.ts';
export * from './key-event.ts';
export * from './key-transitions.ts';
export * from './audit-record.ts';
export * from './agent.ts';
