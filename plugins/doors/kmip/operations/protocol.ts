import { protocolVersion, SUPPORTED_VERSIONS, type ProtocolVersion } from '../messages.ts';
import { child, children, enumeration, K, structure, text } from '../ttlv/index.ts';
import type { KmipAdapter } from './adapter.ts';

const T = K.Tag;

/**
 * DiscoverVersions: the versions the door speaks that the client listed (all of them when it listed
 * none), newest first. Protocol negotiation touches no key, so it is answered by the door itself.
 */
export const discoverVersions: KmipAdapter = async (payload) => {
  const offered: ProtocolVersion[] = children(payload, T.ProtocolVersion).flatMap((pv) => {
    const major = child(pv, T.ProtocolVersionMajor);
    const minor = child(pv, T.ProtocolVersionMinor);
    return major?.type === 'Integer' && minor?.type === 'Integer' ? [{ major: major.value, minor: minor.value }] : [];
  });
  const answer = offered.length
    ? SUPPORTED_VERSIONS.filter((s) => offered.some((o) => o.major === s.major && o.minor === s.minor))
    : SUPPORTED_VERSIONS;
  return { payload: answer.map(protocolVersion) };
};

/** Query: the operations and object types the door serves, and who it is. */
export function query(operations: number[], vendor: string): KmipAdapter {
  return async (payload) => {
    const asked = new Set(
      children(payload, T.QueryFunction).flatMap((q) => (q.type === 'Enumeration' ? [q.value] : [])),
    );
    const Q = K.QueryFunction;
    const out = [];
    if (asked.has(Q.QueryOperations)) out.push(...operations.map((op) => enumeration(T.Operation, op)));
    if (asked.has(Q.QueryObjects))
      out.push(
        ...[K.ObjectType.SymmetricKey, K.ObjectType.PublicKey, K.ObjectType.PrivateKey].map((o) =>
          enumeration(T.ObjectType, o),
        ),
      );
    if (asked.has(Q.QueryServerInformation))
      out.push(text(T.VendorIdentification, vendor), structure(T.ServerInformation, []));
    return { payload: out };
  };
}
