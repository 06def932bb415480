package dev.svckms.client;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;
import java.util.Map;

/**
 * What a key is: its name, algorithm and size, curve or parameter set. Build one with the factories; the
 * service fills in what they leave out (the object type, Ed25519 for EdDSA, an ML-DSA or SLH-DSA key's
 * {@code sizeBits}, which is its set's security strength: 128, 192 or 256).
 *
 * <p>{@code parameterSet} is the ML-DSA (FIPS 204) or SLH-DSA (FIPS 205) parameter set, {@code ML-DSA-65} or
 * {@code SLH-DSA-SHA2-128s} for example, and null for every other algorithm. The service makes these keys
 * when it runs on Node 24; on an older runtime creating one is 400 {@code InvalidField} naming Node 24.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonIgnoreProperties(ignoreUnknown = true)
public record KeySpec(String name, String algorithm, Integer sizeBits, String curve, String objectType,
        Boolean exportable, Map<String, String> tags, String parameterSet) {

    /** The ML-DSA parameter sets (FIPS 204), weakest first. */
    public static final List<String> ML_DSA_SETS = List.of("ML-DSA-44", "ML-DSA-65", "ML-DSA-87");

    /** The SLH-DSA parameter sets (FIPS 205): SHA2 and SHAKE, 128, 192 and 256, small (s) and fast (f). */
    public static final List<String> SLH_DSA_SETS = List.of(
            "SLH-DSA-SHA2-128s", "SLH-DSA-SHA2-128f", "SLH-DSA-SHA2-192s", "SLH-DSA-SHA2-192f",
            "SLH-DSA-SHA2-256s", "SLH-DSA-SHA2-256f", "SLH-DSA-SHAKE-128s", "SLH-DSA-SHAKE-128f",
            "SLH-DSA-SHAKE-192s", "SLH-DSA-SHAKE-192f", "SLH-DSA-SHAKE-256s", "SLH-DSA-SHAKE-256f");

    /** A spec the service fills in as not exportable. */
    public KeySpec(String name, String algorithm, Integer sizeBits, String curve, String objectType) {
        this(name, algorithm, sizeBits, curve, objectType, null, null, null);
    }

    /** A spec without tags, as before keys had them. */
    public KeySpec(String name, String algorithm, Integer sizeBits, String curve, String objectType,
            Boolean exportable) {
        this(name, algorithm, sizeBits, curve, objectType, exportable, null, null);
    }

    /** A spec without a parameter set, as before ML-DSA and SLH-DSA keys (every other algorithm's). */
    public KeySpec(String name, String algorithm, Integer sizeBits, String curve, String objectType,
            Boolean exportable, Map<String, String> tags) {
        this(name, algorithm, sizeBits, curve, objectType, exportable, tags, null);
    }

    /** The same spec, exportable by Humans and Services (fixed at creation; see SvcClient.exportKey). */
    public KeySpec asExportable() {
        return new KeySpec(name, algorithm, sizeBits, curve, objectType, Boolean.TRUE, tags, parameterSet);
    }

    /** The same spec with the tags the key starts with (at most 50; SvcClient.tagKey changes them later). */
    public KeySpec withTags(Map<String, String> value) {
        return new KeySpec(name, algorithm, sizeBits, curve, objectType, exportable, value, parameterSet);
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

    /**
     * ML-DSA (FIPS 204) signatures of the message itself: {@code ML-DSA-44}, {@code ML-DSA-65} or
     * {@code ML-DSA-87} (see {@link #ML_DSA_SETS}). The service checks the set; Node 24 only.
     */
    public static KeySpec mlDsa(String name, String parameterSet) {
        return new KeySpec(name, "ML-DSA", null, null, null, null, null, parameterSet);
    }

    /**
     * SLH-DSA (FIPS 205) hash-based signatures of the message itself: one of {@link #SLH_DSA_SETS}, for
     * example {@code SLH-DSA-SHA2-128s} (small signatures, slow to sign) or {@code SLH-DSA-SHA2-128f}
     * (larger, fast). The service checks the set; Node 24 only.
     */
    public static KeySpec slhDsa(String name, String parameterSet) {
        return new KeySpec(name, "SLH-DSA", null, null, null, null, null, parameterSet);
    }
}
