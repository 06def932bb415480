import { K } from '../ttlv/index.ts';
import type { KmipAdapter } from './adapter.ts';
import { mac, macVerify, sign, signatureVerify } from './crypto.ts';
import { decrypt, encrypt } from './gcm.ts';
import { activate, create, createKeyPair, destroy, reKey, revoke } from './lifecycle.ts';
import { get, getAttributeList, getAttributes, locate } from './objects.ts';
import { discoverVersions, query } from './protocol.ts';
import { register } from './register.ts';

const O = K.Operation;

/** Every KMIP operation the door serves, by its Operation number. */
export function kmipOperations(vendor: string): Map<number, KmipAdapter> {
  const table = new Map<number, KmipAdapter>([
    [O.DiscoverVersions, discoverVersions],
    [O.Create, create],
    [O.CreateKeyPair, createKeyPair],
    [O.Register, register],
    [O.Get, get],
    [O.GetAttributes, getAttributes],
    [O.GetAttributeList, getAttributeList],
    [O.Locate, locate],
    [O.Activate, activate],
    [O.Revoke, revoke],
    [O.Destroy, destroy],
    [O.Rekey, reKey],
    [O.Encrypt, encrypt],
    [O.Decrypt, decrypt],
    [O.Sign, sign],
    [O.SignatureVerify, signatureVerify],
    [O.Mac, mac],
    [O.MacVerify, macVerify],
  ]);
  table.set(
    O.Query,
    query(
      [...table.keys(), O.Query].sort((a, b) => a - b),
      vendor,
    ),
  );
  return table;
}

/** The name of an Operation number, for the audit context and messages. */
export const OPERATION_NAMES: Record<number, string> = Object.fromEntries(
  Object.entries(O).map(([name, code]) => [code, name]),
);
