import { child, children, K, structure, text, type TtlvItem } from './ttlv/index.ts';

const T = K.Tag;

/** The attributes the door reads and answers: KMIP 1.x names them by text, 2.0 by tag. */
export const ATTRIBUTE_TAGS: Record<string, number> = {
  'Unique Identifier': T.UniqueIdentifier,
  Name: T.Name,
  'Object Type': T.ObjectType,
  'Cryptographic Algorithm': T.CryptographicAlgorithm,
  'Cryptographic Length': T.CryptographicLength,
  'Cryptographic Usage Mask': T.CryptographicUsageMask,
  'Cryptographic Domain Parameters': T.CryptographicDomainParameters,
  State: T.State,
  'Initial Date': T.InitialDate,
  'Activation Date': T.ActivationDate,
  'Deactivation Date': T.DeactivationDate,
  'Compromise Date': T.CompromiseDate,
  'Destroy Date': T.DestroyDate,
  'Last Change Date': T.LastChangeDate,
  Extractable: T.Extractable,
};

const NAME_OF_TAG = new Map(Object.entries(ATTRIBUTE_TAGS).map(([name, tag]) => [tag, name]));

/** One attribute value, made for whichever tag the protocol version wants it under. */
export type AttributeValue = (tag: number) => TtlvItem;
export type AttributeList = Array<[name: string, value: AttributeValue]>;

/**
 * The attributes a request carries, by name: from 1.x Attribute structures (Attribute Name + Attribute
 * Value) in any of `containers`, and from 2.0 structures whose children are the attributes themselves.
 * The values keep their wire tag; readers look only at their type and children.
 */
export function readAttributes(containers: Array<TtlvItem | undefined>): Map<string, TtlvItem> {
  const found = new Map<string, TtlvItem>();
  for (const container of containers) {
    if (container?.type !== 'Structure') continue;
    for (const item of container.value) {
      if (item.tag === T.Attribute) {
        const name = child(item, T.AttributeName);
        const value = child(item, T.AttributeValue);
        if (name?.type === 'TextString' && value && !found.has(name.value)) found.set(name.value, value);
      } else {
        const name = NAME_OF_TAG.get(item.tag);
        if (name && !found.has(name)) found.set(name, item);
      }
    }
  }
  return found;
}

/** Attribute names a 1.x request lists (GetAttributes' Attribute Name items), or 2.0 Attribute Reference tags. */
export function requestedNames(payload: TtlvItem): string[] | undefined {
  const names = children(payload, T.AttributeName).flatMap((n) => (n.type === 'TextString' ? [n.value] : []));
  const refs = children(payload, T.AttributeReference).flatMap((r) => {
    // 2.0: an Attribute Reference holds a Vendor Identification and an Attribute Name, or is an enumeration of the tag.
    if (r.type === 'Enumeration') return NAME_OF_TAG.get(r.value) ? [NAME_OF_TAG.get(r.value)!] : [];
    const name = child(r, T.AttributeName);
    return name?.type === 'TextString' ? [name.value] : [];
  });
  const all = [...names, ...refs];
  return all.length ? all : undefined;
}

/** Attributes as the version carries them: 1.x one Attribute structure each, 2.0 one Attributes structure. */
export function encodeAttributes(list: AttributeList, v2: boolean): TtlvItem[] {
  if (v2)
    return [
      structure(
        T.Attributes,
        list.map(([name, value]) => value(ATTRIBUTE_TAGS[name]!)),
      ),
    ];
  return list.map(([name, value]) => structure(T.Attribute, [text(T.AttributeName, name), value(T.AttributeValue)]));
}

/** Attribute names as GetAttributeList answers them: 1.x Attribute Name texts, 2.0 Attribute Reference enumerations. */
export function encodeAttributeNames(names: string[], v2: boolean): TtlvItem[] {
  if (v2) return names.map((n) => ({ tag: T.AttributeReference, type: 'Enumeration', value: ATTRIBUTE_TAGS[n]! }));
  return names.map((n) => text(T.AttributeName, n));
}

/** The text of a Name attribute's Name Value. */
export function nameValue(item: TtlvItem | undefined): string | undefined {
  const v = child(item, T.NameValue);
  return v?.type === 'TextString' ? v.value : undefined;
}

/** The number an Enumeration or Integer attribute holds. */
export function numberValue(item: TtlvItem | undefined): number | undefined {
  return item && (item.type === 'Enumeration' || item.type === 'Integer') ? item.value : undefined;
}
