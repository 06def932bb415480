package dev.svckms.client;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.Map;

/**
 * What a key is: its name, algorithm and size or curve. Build one with the factories; the service
 * fills in what they leave out (the object type, Ed25519 for EdDSA).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public record KeySpec(String name, String algorithm, Integer sizeBits, String curve, String objectType,
        Boolean exportable, Map<String, String> tags) {

    /** A spec the service fills in as not exportable. */
    public KeySpec(String name, String algorithm, Integer sizeBits, String curve, String objectType) {
        this(name, algorithm, sizeBits, curve, objectType, null, null);
    }

    /** A spec without tags, as before keys had them. */
    public KeySpec(String name, String algorithm, Integer sizeBits, String curve, String objectType,
            Boolean exportable) {
        this(name, algorithm, sizeBits, curve, objectType, exportable, null);
    }

    /** The same spec, exportable by Humans and Services (fixed at creation; see SvcClient.exportKey). */
    public KeySpec asExportable() {
        return new KeySpec(name, algorithm, sizeBits, curve, objectType, Boolean.TRUE, tags);
    }

    /** The same spec with the tags the key starts with (at most 50; SvcClient.tagKey changes them later). */
    public KeySpec withTags(Map<String, String> value) {
        return new KeySpec(name, algorithm, sizeBits, curve, objectType, exportable, value);
    }

    /** AES-GCM for encrypt/decrypt and AES key wrap: 128, 192 or 256 bits. */
    public static KeySpec aes(String name, int sizeBits) {
        return new KeySpec(name, "AES", sizeBits, null, null);
    }

    /** ECDSA on P-256, P-384, P-521 or secp256k1. */
    public static KeySpec ec(String name, String curve) {
        return new KeySpec(name, "EC", null, curve, null);
    }

    /** EdDSA on Ed25519. */
    public static KeySpec ed25519(String name) {
        return new KeySpec(name, "EdDSA", null, "Ed25519", null);
    }

    /** RSA-PSS signatures: 2048, 3072 or 4096 bits. */
    public static KeySpec rsa(String name, int sizeBits) {
        return new KeySpec(name, "RSA", sizeBits, null, null);
    }

    /** HMAC-SHA2 message authentication: 256, 384 or 512 bits. */
    public static KeySpec hmac(String name, int sizeBits) {
        return new KeySpec(name, "HMAC", sizeBits, null, null);
    }
}
