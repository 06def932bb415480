#!/usr/bin/python3
"""Runs KMIP operations with PyKMIP's client (the reference KMIP client) against the service.

Reads one JSON object on stdin: {"host", "port", "cert", "key", "ca", "version": "1.2" | "2.0", "steps": [...]}
where each step is {"op": <name>, ...arguments}; an argument "$N" is replaced by step N's result ("$N.field" by a field of it). Prints one
JSON list: each step's {"ok": result} or {"error": {"status", "reason", "message"}} (reason and status are
PyKMIP's enumeration names, so the test reads what a KMIP client sees)."""
import json
import sys

from kmip import enums
from kmip.core import attributes as core_attributes
from kmip.core import exceptions as core_exceptions
from kmip.core import objects as cobjects
from kmip.core.factories import attributes as attribute_factories
from kmip.core.messages import contents
from kmip.core.messages import payloads
from kmip.pie import client as pie_client
from kmip.pie import exceptions as pie_exceptions
from kmip.pie import objects as pie_objects

request = json.load(sys.stdin)
version = {'1.0': enums.KMIPVersion.KMIP_1_0, '1.2': enums.KMIPVersion.KMIP_1_2, '1.4': enums.KMIPVersion.KMIP_1_4, '2.0': enums.KMIPVersion.KMIP_2_0}[request.get('version', '1.2')]
client = pie_client.ProxyKmipClient(hostname=request['host'], port=request['port'], cert=request['cert'], key=request['key'], ca=request['ca'], config_file='/dev/null', kmip_version=version)
factory = attribute_factories.AttributeFactory()
results = []


def resolve(value):
    if isinstance(value, str) and value.startswith('$'):
        index, _, field = value[1:].partition('.')
        found = results[int(index)]['ok']
        return found[field] if field else found
    if isinstance(value, list):
        return [resolve(v) for v in value]
    return value


def enum_value(v):
    return v.name if hasattr(v, 'name') else v


def plain(value):
    """Attribute values as JSON: enumerations by name, names by text, dates as epoch seconds."""
    if hasattr(value, 'name_value'):
        return value.name_value.value
    if hasattr(value, 'value'):
        value = value.value
    if hasattr(value, 'name'):
        return value.name
    if isinstance(value, bytes):
        return value.hex()
    return value


def crypto_parameters(step):
    params = {}
    for key in ('block_cipher_mode', 'padding_method', 'hashing_algorithm', 'cryptographic_algorithm', 'digital_signature_algorithm'):
        if key in step:
            params[key] = getattr({'block_cipher_mode': enums.BlockCipherMode, 'padding_method': enums.PaddingMethod, 'hashing_algorithm': enums.HashingAlgorithm,
                                   'cryptographic_algorithm': enums.CryptographicAlgorithm, 'digital_signature_algorithm': enums.DigitalSignatureAlgorithm}[key], step[key])
    return params or None


def gcm_parameters(step):
    """Cryptographic Parameters of an AES-GCM call: Block Cipher Mode GCM, Tag Length in bytes."""
    return core_attributes.CryptographicParameters(block_cipher_mode=enums.BlockCipherMode.GCM, cryptographic_algorithm=enums.CryptographicAlgorithm.AES, tag_length=step.get('tag_length', 16))


def with_aead_fields(payload_class):
    """The payload written with KMIP 1.4's AEAD fields whatever the message's version (PyKMIP leaves them out below 1.4)."""
    class AnyVersion(payload_class):
        def write(self, output_stream, kmip_version=enums.KMIPVersion.KMIP_1_0):
            if kmip_version < enums.KMIPVersion.KMIP_1_4:
                kmip_version = enums.KMIPVersion.KMIP_1_4
            super(AnyVersion, self).write(output_stream, kmip_version=kmip_version)
    return AnyVersion


def optional_bytes(step, name):
    value = resolve(step.get(name))
    return bytes.fromhex(value) if value is not None else None


def gcm(step):
    """Encrypt or Decrypt with AES-GCM's IV, tag and additional data in KMIP's own fields, as PyKMIP's payloads carry them."""
    encrypting = step['op'] == 'gcm_encrypt'
    payload_class = payloads.EncryptRequestPayload if encrypting else payloads.DecryptRequestPayload
    if step.get('aead_fields_any_version'):
        payload_class = with_aead_fields(payload_class)
    fields = dict(unique_identifier=resolve(step['uid']), cryptographic_parameters=gcm_parameters(step), data=bytes.fromhex(resolve(step['data'])),
                  iv_counter_nonce=optional_bytes(step, 'iv'), auth_additional_data=optional_bytes(step, 'aad'))
    if not encrypting:
        fields['auth_tag'] = optional_bytes(step, 'tag')
    response = client.proxy.send_request_payload(enums.Operation.ENCRYPT if encrypting else enums.Operation.DECRYPT, payload_class(**fields))
    if not encrypting:
        return response.data.hex()
    tag = getattr(response, 'auth_tag', None)
    return {'data': response.data.hex(), 'iv': response.iv_counter_nonce.hex() if response.iv_counter_nonce else None, 'tag': tag.hex() if tag else None}


def run(step):
    op = step['op']
    uid = resolve(step.get('uid'))
    if op == 'create':
        return client.create(getattr(enums.CryptographicAlgorithm, step['algorithm']), step['length'], name=step.get('name'))
    if op == 'create_key_pair':
        public_uid, private_uid = client.create_key_pair(getattr(enums.CryptographicAlgorithm, step['algorithm']), step['length'], private_name=step.get('name'), public_name=step.get('name'))
        return {'public': public_uid, 'private': private_uid}
    if op == 'register':
        material = bytes.fromhex(step['material'])
        if step['kind'] == 'symmetric':
            obj = pie_objects.SymmetricKey(getattr(enums.CryptographicAlgorithm, step['algorithm']), step['length'], material, name=step.get('name', 'Symmetric Key'))
        else:
            obj = pie_objects.PrivateKey(getattr(enums.CryptographicAlgorithm, step['algorithm']), step['length'], material, enums.KeyFormatType.PKCS_8, name=step.get('name', 'Private Key'))
        return client.register(obj)
    if op == 'get':
        obj = client.get(uid)
        return {'object_type': obj.object_type.name, 'value': obj.value.hex(), 'format': enum_value(getattr(obj, 'key_format_type', None)),
                'algorithm': enum_value(obj.cryptographic_algorithm), 'length': obj.cryptographic_length}
    if op == 'get_attributes':
        got_uid, attrs = client.get_attributes(uid, step.get('names'))
        out = {'uid': got_uid}
        for a in attrs:
            out[a.attribute_name.value] = plain(a.attribute_value)
        return out
    if op == 'get_attribute_list':
        return sorted(client.get_attribute_list(uid))
    if op == 'locate':
        attrs = []
        if 'name' in step:
            attrs.append(factory.create_attribute(enums.AttributeType.NAME, step['name']))
        if 'object_type' in step:
            attrs.append(factory.create_attribute(enums.AttributeType.OBJECT_TYPE, getattr(enums.ObjectType, step['object_type'])))
        if 'state' in step:
            attrs.append(factory.create_attribute(enums.AttributeType.STATE, getattr(enums.State, step['state'])))
        if 'algorithm' in step:
            attrs.append(factory.create_attribute(enums.AttributeType.CRYPTOGRAPHIC_ALGORITHM, getattr(enums.CryptographicAlgorithm, step['algorithm'])))
        return client.locate(maximum_items=step.get('maximum_items'), offset_items=step.get('offset_items'), attributes=attrs or None)
    if op == 'activate':
        return client.activate(uid)
    if op == 'revoke':
        return client.revoke(getattr(enums.RevocationReasonCode, step['reason']), uid, revocation_message=step.get('message'))
    if op == 'destroy':
        return client.destroy(uid)
    if op == 'rekey':
        return client.rekey(uid=uid)
    if op in ('gcm_encrypt', 'gcm_decrypt'):
        return gcm(step)
    if op == 'encrypt':
        data, iv = client.encrypt(bytes.fromhex(step['data']), uid=uid, cryptographic_parameters=crypto_parameters(step), iv_counter_nonce=optional_bytes(step, 'iv'))
        return {'data': data.hex(), 'iv': iv.hex() if iv else None}
    if op == 'decrypt':
        return client.decrypt(bytes.fromhex(resolve(step['data'])), uid=uid, cryptographic_parameters=crypto_parameters(step), iv_counter_nonce=optional_bytes(step, 'iv')).hex()
    if op == 'sign':
        return client.sign(bytes.fromhex(step['data']), uid=uid, cryptographic_parameters=crypto_parameters(step)).hex()
    if op == 'signature_verify':
        return client.signature_verify(bytes.fromhex(step['data']), bytes.fromhex(resolve(step['signature'])), uid=uid, cryptographic_parameters=crypto_parameters(step)).name
    if op == 'mac':
        got_uid, mac = client.mac(bytes.fromhex(step['data']), uid=uid, algorithm=getattr(enums.CryptographicAlgorithm, step['algorithm']))
        return mac.hex()
    if op == 'query':
        result = client.proxy.query(query_functions=[getattr(enums.QueryFunction, f) for f in step['functions']])
        if result.result_status.value != enums.ResultStatus.SUCCESS:
            raise pie_exceptions.KmipOperationFailure(result.result_status.value, result.result_reason.value, result.result_message.value)
        return {'operations': sorted(str(enum_value(getattr(o, 'value', o))) for o in result.operations or []), 'object_types': sorted(str(enum_value(getattr(o, 'value', o))) for o in result.object_types or []),
                'vendor': getattr(result.vendor_identification, 'value', result.vendor_identification)}
    if op == 'discover_versions':
        offered = [contents.ProtocolVersion(int(v.split('.')[0]), int(v.split('.')[1])) for v in step.get('versions', [])]
        result = client.proxy.discover_versions(protocol_versions=offered or None)
        if result.result_status.value != enums.ResultStatus.SUCCESS:
            raise pie_exceptions.KmipOperationFailure(result.result_status.value, result.result_reason.value, result.result_message.value)
        return ['%d.%d' % (v.major, v.minor) for v in result.protocol_versions]
    raise ValueError('unknown step ' + op)


with client:
    for step in request['steps']:
        try:
            results.append({'ok': run(step)})
        except pie_exceptions.KmipOperationFailure as failure:
            results.append({'error': {'status': enum_value(failure.status), 'reason': enum_value(failure.reason), 'message': failure.message}})
        except core_exceptions.KmipError as failure:
            # What the payload-level calls (send_request_payload) raise: the Result Message is its text.
            results.append({'error': {'status': enum_value(failure.status), 'reason': enum_value(failure.reason), 'message': str(failure)}})
print(json.dumps(results))
