import { Type } from '@sinclair/typebox';
import { defineSettings } from '../../../kernel/index.ts';
import { commaList } from '../support/comma-list.ts';

/**
 * The PKCS#11 token settings: the current KEK when crypto.kind is pkcs11, and the previous labels that still unwrap.
 */
export const pkcs11Config = defineSettings(
  Type.Object({
    crypto: Type.Object({
      pkcs11: Type.Object({
        module: Type.String({
          description:
            "pkcs11: path of the HSM vendor's PKCS#11 library (SoftHSM2: " +
            '/usr/lib/softhsm/libsofthsm2.so); required when crypto.kind is pkcs11.',
          default: '',
        }),
        tokenLabel: Type.String({
          description:
            'pkcs11: label of the token (partition, slot) that holds the KEK; required when crypto.kind is pkcs11.',
          default: '',
        }),
        pin: Type.String({
          description: "pkcs11: the token's user PIN (or set crypto.pkcs11.pinFile). Never logged.",
          default: '',
          sensitive: true,
        }),
        pinFile: Type.String({
          description: 'pkcs11: a file holding the user PIN (one line), instead of crypto.pkcs11.pin.',
          default: '',
        }),
        kekLabel: Type.String({
          description:
            'pkcs11: label of the AES-256 KEK on the token (sensitive, never ' +
            'extractable) that wraps every key-wrapping key; required when ' +
            'crypto.kind is pkcs11.',
          default: '',
        }),
        createKek: Type.Boolean({
          description:
            'pkcs11: create the KEK on the token at boot when no key has its label ' +
            '(sensitive, never extractable). Off by default, so a mistyped label ' +
            "fails the boot instead of making a new KEK; set it for one node's " +
            'first boot only (two nodes creating at once make two keys with the ' +
            'label, which stops every boot).',
          default: false,
        }),
        previousKekLabels: Type.String({
          description:
            'Earlier KEK labels on the same token (comma-separated) that still ' +
            'unwrap until `rewrap` has moved every key to the current KEK (also ' +
            'when the current one is local or in cloud-kms).',
          default: '',
        }),
      }),
    }),
  }),
);

/** What one pkcs11 root of trust needs: the token, how to log in, the current KEK and the previous ones. */
export interface Pkcs11Settings {
  module: string;
  tokenLabel: string;
  pin: string;
  pinFile: string;
  kekLabel: string;
  createKek: boolean;
  previousKekLabels: string[];
}

/** The pkcs11 settings as the pkcs11 root of trust reads them. */
export function pkcs11Settings(c: {
  module: string;
  tokenLabel: string;
  pin: string;
  pinFile: string;
  kekLabel: string;
  createKek: boolean;
  previousKekLabels: string;
}): Pkcs11Settings {
  return {
    module: c.module,
    tokenLabel: c.tokenLabel,
    pin: c.pin,
    pinFile: c.pinFile,
    kekLabel: c.kekLabel,
    createKek: c.createKek,
    previousKekLabels: commaList(c.previousKekLabels),
  };
}

/**
 * The previous pkcs11 KEKs that still unwrap while keys move off pkcs11 to another kind (undefined when
 * none are listed): the first listed label stands as the instance's own, none is created.
 */
export function pkcs11PreviousSettings(c: Parameters<typeof pkcs11Settings>[0]): Pkcs11Settings | undefined {
  const labels = commaList(c.previousKekLabels);
  if (labels.length === 0) return undefined;
  return { ...pkcs11Settings(c), kekLabel: labels[0]!, previousKekLabels: labels.slice(1), createKek: false };
}

/** A KEK's public name: which token, which key on it. */
export const pkcs11KekId = (tokenLabel: string, kekLabel: string): string => `pkcs11:${tokenLabel}/${kekLabel}`;

/**
 * The settings problems that stop a boot, each naming its setting and variable (never the PIN's value).
 * `role` says what the token is for: the current root of trust, or previous KEKs read while moving off it.
 */
export function pkcs11SettingProblems(
  s: Pkcs11Settings,
  role: 'current' | 'previous',
): { name: string; message: string; advice: string }[] {
  const why = role === 'current' ? 'crypto.kind is pkcs11' : 'SVC_CRYPTO_PKCS11_PREVIOUS_KEK_LABELS is set';
  const problems: { name: string; message: string; advice: string }[] = [];
  if (!s.module)
    problems.push({
      name: 'crypto.pkcs11.module',
      message: `${why} but SVC_CRYPTO_PKCS11_MODULE is empty`,
      advice: "set the path of the HSM vendor's PKCS#11 library, for example /usr/lib/softhsm/libsofthsm2.so",
    });
  if (!s.tokenLabel)
    problems.push({
      name: 'crypto.pkcs11.tokenLabel',
      message: `${why} but SVC_CRYPTO_PKCS11_TOKEN_LABEL is empty`,
      advice: 'set the label of the token (partition) that holds the KEK',
    });
  if (!s.pin && !s.pinFile)
    problems.push({
      name: 'crypto.pkcs11.pin',
      message: `${why} but neither SVC_CRYPTO_PKCS11_PIN nor SVC_CRYPTO_PKCS11_PIN_FILE is set`,
      advice:
        "give the token's user PIN in SVC_CRYPTO_PKCS11_PIN_FILE (a file " +
        'readable by this service only) or SVC_CRYPTO_PKCS11_PIN',
    });
  if (s.pin && s.pinFile)
    problems.push({
      name: 'crypto.pkcs11.pin',
      message: 'both SVC_CRYPTO_PKCS11_PIN and SVC_CRYPTO_PKCS11_PIN_FILE are set',
      advice: 'set one of them',
    });
  if (role === 'current' && !s.kekLabel)
    problems.push({
      name: 'crypto.pkcs11.kekLabel',
      message: `${why} but SVC_CRYPTO_PKCS11_KEK_LABEL is empty`,
      advice:
        'set the label of the AES-256 KEK on the token (with ' +
        'SVC_CRYPTO_PKCS11_CREATE_KEK=true on the first boot to create it)',
    });
  return problems;
}
