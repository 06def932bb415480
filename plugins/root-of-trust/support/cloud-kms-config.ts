import { Type } from '@sinclair/typebox';
import { defineSettings } from '../../../kernel/index.ts';
import { outboundUrlSetting } from '../../net-support/safe-url.ts';

/** Earlier local KEKs: read by the local root of trust, and by cloud-kms and pkcs11 while moving off the local one. */
export const localPreviousKeks = defineSettings(
  Type.Object({
    crypto: Type.Object({
      previousKeks: Type.String({
        description:
          'Earlier local KEKs (comma-separated base64) that still unwrap until `rewrap` has moved every key to the current KEK (also when the current one is in cloud-kms or pkcs11).',
        default: '',
        env: 'SVC_CRYPTO_LOCAL_PREVIOUS_KEKS',
        sensitive: true,
      }),
    }),
  }),
);

/** The cloud KMS settings: the cloud-kms root of trust's, and the other kinds' while moving off cloud-kms. */
export const cloudKmsConfig = defineSettings(
  Type.Object({
    crypto: Type.Object({
      cloudKms: Type.Object({
        region: Type.String({ description: 'cloud-kms region; required when crypto.kind is cloud-kms.', default: '' }),
        kekArn: Type.String({
          description:
            'cloud-kms: ARN of the KMS key (the KEK) that wraps every key-wrapping key; required when crypto.kind is cloud-kms.',
          default: '',
        }),
        previousKekArns: Type.String({
          description:
            'Earlier KEK ARNs (comma-separated) that still unwrap until `rewrap` has moved every key to the current KEK (also when the current one is local or pkcs11).',
          default: '',
        }),
        endpoint: outboundUrlSetting(
          "cloud-kms endpoint override (an emulator, a VPC endpoint): https://, or http:// to a loopback host only; empty uses the region's.",
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

/** A comma-separated setting as its entries, blanks dropped. */
export const commaList = (text: string): string[] =>
  text
    .split(',')
    .map((a) => a.trim())
    .filter(Boolean);

/** The previous cloud KMS KEKs another kind's root of trust unwraps with while moving off cloud-kms. */
export interface CloudKmsPrevious {
  region: string;
  endpoint: string;
  timeoutMs: number;
  arns: string[];
}

/** The cloud-kms settings as another kind's root of trust reads them: the region, endpoint and time limit of its previous KEKs. */
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
