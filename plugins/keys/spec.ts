import {
  type Curve,
  EC_CURVES,
  ED_CURVES,
  type KeySpec,
  ML_DSA_SETS,
  type ParameterSet,
  requireCallerText,
  SLH_DSA_SETS,
  SvcError,
} from '../../kernel/index.ts';
import { PQ_STRENGTH, requirePostQuantum } from './crypto/post-quantum.ts';
import { checkTags } from './tags.ts';

export interface KeySpecRequest {
  /** Absent: the key is named by its id (doors whose protocols create unnamed keys: KMIP without a Name). */
  name?: string;
  algorithm: string;
  sizeBits?: number;
  curve?: string;
  parameterSet?: string;
  objectType?: string;
  exportable?: boolean;
  /** Tags the key starts with (at most 50; key 1..128, value 0..256 characters). */
  tags?: Record<string, string>;
}

/** A spec before its name and `exportable` flag are filled in (the same for every algorithm). */
type BaseSpec = Omit<KeySpec, 'exportable' | 'name'>;

/** A spec for a key about to be made: without a name, the key's id becomes its name. */
export type NewKeySpec = Omit<KeySpec, 'name'> & { name?: string };

const EC_SIZE: Record<string, number> = { 'P-256': 256, 'P-384': 384, 'P-521': 521, secp256k1: 256 };
const EC_BY_SIZE: Record<number, Curve> = { 256: 'P-256', 384: 'P-384', 521: 'P-521' };
const ED_SIZE: Record<string, number> = { Ed25519: 256, Ed448: 448 };

const invalid = (message: string) => new SvcError('InvalidField', message);

function symmetric(req: KeySpecRequest, sizes: number[], fallback: number): BaseSpec {
  const sizeBits = req.sizeBits ?? fallback;
  if (!sizes.includes(sizeBits)) throw invalid(`spec.sizeBits must be one of ${sizes.join(', ')} for ${req.algorithm}`);
  if (req.curve !== undefined) throw invalid(`spec.curve does not apply to ${req.algorithm}`);
  return { algorithm: req.algorithm as KeySpec['algorithm'], sizeBits, objectType: 'SymmetricKey' };
}

function ec(req: KeySpecRequest): BaseSpec {
  let curve = req.curve as Curve | undefined;
  if (curve !== undefined && !(EC_CURVES as readonly string[]).includes(curve))
    throw invalid(`spec.curve must be one of ${EC_CURVES.join(', ')} for EC`);
  if (curve === undefined) {
    curve = EC_BY_SIZE[req.sizeBits ?? 256];
    if (!curve) throw invalid('spec.sizeBits must be 256, 384 or 521 for EC without a curve');
  } else if (req.sizeBits !== undefined && req.sizeBits !== EC_SIZE[curve]) {
    throw invalid(`spec.sizeBits ${req.sizeBits} does not match curve ${curve} (${EC_SIZE[curve]})`);
  }
  return { algorithm: 'EC', sizeBits: EC_SIZE[curve]!, curve, objectType: 'PrivateKey' };
}

function eddsa(req: KeySpecRequest): BaseSpec {
  const curve = (req.curve ?? 'Ed25519') as Curve;
  if (!(ED_CURVES as readonly string[]).includes(curve))
    throw invalid(`spec.curve must be one of ${ED_CURVES.join(', ')} for EdDSA`);
  if (req.sizeBits !== undefined && req.sizeBits !== ED_SIZE[curve])
    throw invalid(`spec.sizeBits ${req.sizeBits} does not match curve ${curve} (${ED_SIZE[curve]})`);
  return { algorithm: 'EdDSA', sizeBits: ED_SIZE[curve]!, curve, objectType: 'PrivateKey' };
}

/** ML-DSA or SLH-DSA: a parameter set of the family (default ML-DSA-65, SLH-DSA-SHA2-128s); sizeBits is its strength. */
function postQuantum(req: KeySpecRequest, algorithm: 'ML-DSA' | 'SLH-DSA'): BaseSpec {
  const sets: readonly string[] = algorithm === 'ML-DSA' ? ML_DSA_SETS : SLH_DSA_SETS;
  const parameterSet = (req.parameterSet ??
    (algorithm === 'ML-DSA' ? 'ML-DSA-65' : 'SLH-DSA-SHA2-128s')) as ParameterSet;
  if (!sets.includes(parameterSet))
    throw invalid(`spec.parameterSet must be one of ${sets.join(', ')} for ${algorithm}`);
  if (req.curve !== undefined) throw invalid(`spec.curve does not apply to ${algorithm}`);
  const sizeBits = PQ_STRENGTH[parameterSet];
  if (req.sizeBits !== undefined && req.sizeBits !== sizeBits)
    throw invalid(`spec.sizeBits ${req.sizeBits} does not match ${parameterSet} (security strength ${sizeBits})`);
  requirePostQuantum(algorithm);
  return { algorithm, sizeBits, parameterSet, objectType: 'PrivateKey' };
}

/**
 * Checks a requested KeySpec against the key types the service supports and fills in the defaults (curve, sizeBits,
 * objectType).
 */
export function normaliseSpec(req: KeySpecRequest): NewKeySpec {
  if (req.name !== undefined) {
    if (req.name.length < 1 || [...req.name].length > 256) throw invalid('spec.name must be 1..256 characters');
    requireCallerText(req.name, 'spec.name');
    // Wherever a key is named, alias/NAME means an alias (Locate by name, a KMIP Name): no key takes such a name.
    if (req.name.startsWith('alias/'))
      throw invalid('spec.name must not start with alias/: that names an alias (PUT /v1/aliases/{name} makes one)');
  }
  let spec: BaseSpec;
  switch (req.algorithm) {
    case 'AES':
      spec = symmetric(req, [128, 192, 256], 256);
      break;
    case 'HMAC':
      spec = symmetric(req, [256, 384, 512], 256);
      break;
    case 'RSA':
      spec = { ...symmetric({ ...req, curve: undefined }, [2048, 3072, 4096], 2048), objectType: 'PrivateKey' };
      if (req.curve !== undefined) throw invalid('spec.curve does not apply to RSA');
      break;
    case 'EC':
      spec = ec(req);
      break;
    case 'EdDSA':
      spec = eddsa(req);
      break;
    case 'ML-DSA':
    case 'SLH-DSA':
      spec = postQuantum(req, req.algorithm);
      break;
    default:
      throw invalid('spec.algorithm must be one of AES, RSA, EC, EdDSA, HMAC, ML-DSA, SLH-DSA');
  }
  if (req.parameterSet !== undefined && spec.parameterSet === undefined)
    throw invalid(`spec.parameterSet applies to ML-DSA and SLH-DSA keys, not ${spec.algorithm}`);
  if (req.objectType !== undefined && req.objectType !== spec.objectType) {
    throw invalid(`spec.objectType must be ${spec.objectType} for ${spec.algorithm}`);
  }
  const tags = req.tags === undefined ? undefined : checkTags(req.tags, 'spec.tags');
  return {
    ...(req.name !== undefined ? { name: req.name } : {}),
    ...spec,
    exportable: req.exportable ?? false,
    ...(tags && Object.keys(tags).length ? { tags } : {}),
  };
}
