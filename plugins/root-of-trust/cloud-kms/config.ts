import { Type } from '@sinclair/typebox';
import { defineSettings } from '../../../kernel/index.ts';
import { outboundUrlSetting } from '../../net-support/safe-url.ts';
import { commaList } from '../support/comma-list.ts';

/** The cloud KMS settings: the current KEK when crypto.kind is cloud-kms, and the previous ARNs that still unwrap. */
export const cloudKmsSettings = defineSettings(
  Type.Object({
    crypto: Type.Object({
      cloudKms: Type.Object({
        region: Type.String({ description: 'cloud-kms region; required when crypto.kind is cloud-kms.', default: '' }),
        kekArn: Type.String({
          description:
            'cloud-kms: ARN of the KMS key (the KEK) that wraps every key-wrapping ' +
            'key; required when crypto.kind is cloud-kms.',
          default: '',
        }),
        previousKekArns: Type.String({
          description:
            'Earlier KEK ARNs (comma-separated) that still unwrap until `rewrap` ' +
            'has moved every key to the current KEK (also when the current one is ' +
            'local or pkcs11).',
          default: '',
        }),
        endpoint: outboundUrlSetting(
          'cloud-kms endpoint override (an emulator, a VPC endpoint): https://, ' +
            "or http:// to a loopback host only; empty uses the region's.",
        ),
        timeoutMs: Type.Integer({
          minimum: 0,
          description: 'Time limit of one KMS call; past it the operation answers 503 with Retry-After.',
          default: 5000,
        }),
      }),
    }),
  }),
);

/** The previous cloud KMS KEKs that still unwrap while keys move off cloud-kms to another kind. */
export interface CloudKmsPrevious {
  region: string;
  endpoint: string;
  timeoutMs: number;
  arns: string[];
}

/** The region, endpoint and time limit of the previous KEKs, and their ARNs. */
export function cloudKmsPrevious(c: {
  region: string;
  endpoint: string;
  timeoutMs: number;
  previousKekArns: string;
}): CloudKmsPrevious {
  return {
    region: c.region,
    endpoint: c.endpoint,
    timeoutMs: Math.max(100, c.timeoutMs),
    arns: commaList(c.previousKekArns),
  };
}
