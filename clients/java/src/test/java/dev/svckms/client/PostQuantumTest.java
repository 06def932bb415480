package dev.svckms.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * ML-DSA and SLH-DSA keys through KeySpec.mlDsa and KeySpec.slhDsa, against the real service at SVC_TEST_URL
 * (see SvcClientTest). The service makes them on Node 24; on an older runtime creating one is 400
 * InvalidField naming Node 24, and the message names the Node version the service runs, which this test
 * reads to know which answer is right: a refusal from a Node 24 service fails it, as a key from an older one would.
 */
class PostQuantumTest {
    private static final SvcClient KMS = SvcClient.builder().baseUrl(System.getenv("SVC_TEST_URL")).bearerToken(System.getenv("SVC_TEST_TOKEN")).build();
    private static final byte[] MESSAGE = "firmware 7.1.0".getBytes(StandardCharsets.UTF_8);
    private static final Pattern RUNTIME = Pattern.compile("this service runs Node v(\\d+)\\.");

    /** The key, or null after checking the refusal of a service on a runtime without the algorithm. */
    private static ManagedKey createOrRefused(KeySpec spec) {
        try {
            return KMS.createKey(spec);
        } catch (SvcApiException refused) {
            assertEquals(400, refused.status(), refused.getMessage());
            assertEquals("InvalidField", refused.code());
            assertTrue(refused.getMessage().startsWith(spec.algorithm() + " keys need Node 24"), refused.getMessage());
            Matcher runtime = RUNTIME.matcher(refused.getMessage());
            assertTrue(runtime.find(), refused.getMessage());
            assertTrue(Integer.parseInt(runtime.group(1)) < 24, "a Node 24 service refused it: " + refused.getMessage());
            return null;
        }
    }

    @Test
    void factoriesFillTheSpecAndOldConstructorsStillCompile() {
        KeySpec ml = KeySpec.mlDsa("java-ml", "ML-DSA-65");
        assertEquals("ML-DSA", ml.algorithm());
        assertEquals("ML-DSA-65", ml.parameterSet());
        assertNull(ml.sizeBits());
        KeySpec slh = KeySpec.slhDsa("java-slh", "SLH-DSA-SHA2-128s").asExportable().withTags(Map.of("team", "pki"));
        assertEquals("SLH-DSA-SHA2-128s", slh.parameterSet(), "asExportable and withTags keep the set");
        assertEquals(Boolean.TRUE, slh.exportable());
        assertEquals(3, KeySpec.ML_DSA_SETS.size());
        assertEquals(12, KeySpec.SLH_DSA_SETS.size());
        KeySpec seven = new KeySpec("n", "AES", 256, null, null, Boolean.FALSE, Map.of());
        KeySpec six = new KeySpec("n", "AES", 256, null, null, Boolean.FALSE);
        KeySpec five = new KeySpec("n", "AES", 256, null, null);
        assertNull(seven.parameterSet());
        assertNull(six.parameterSet());
        assertNull(five.parameterSet());
        assertNull(KeySpec.aes("n", 256).parameterSet());
    }

    @Test
    void mlDsaKeySignsVerifiesExportsAndImports() {
        ManagedKey key = createOrRefused(KeySpec.mlDsa("java-ml-dsa", "ML-DSA-65").asExportable());
        if (key == null) return;
        assertEquals("ML-DSA", key.spec().algorithm());
        assertEquals("ML-DSA-65", key.spec().parameterSet(), "the spec read back names the set");
        assertEquals(192, key.spec().sizeBits(), "sizeBits is the set's security strength");
        KMS.activate(key.id());
        SignResult signed = KMS.sign(key.id(), MESSAGE);
        assertEquals("ML-DSA-65", signed.algorithm());
        assertTrue(KMS.verify(key.id(), MESSAGE, signed.signatureBase64()));
        byte[] changed = Base64.getDecoder().decode(signed.signatureBase64());
        changed[0] ^= 1;
        assertFalse(KMS.verify(key.id(), MESSAGE, Base64.getEncoder().encodeToString(changed)));
        SvcApiException digest = assertThrows(SvcApiException.class, () -> KMS.signDigest(key.id(), new byte[32], null));
        assertEquals("InvalidField", digest.code());
        assertTrue(digest.getMessage().contains("signs the message itself"), digest.getMessage());

        ExportedKey exported = KMS.exportKey(key.id());
        assertEquals("pkcs8-der", exported.format());
        ManagedKey imported = KMS.importKey(KeySpec.mlDsa("java-ml-dsa-imported", "ML-DSA-65"), exported.material());
        assertEquals("imported", imported.origin());
        assertEquals("ML-DSA-65", imported.spec().parameterSet());
        KMS.activate(imported.id());
        assertTrue(KMS.verify(key.id(), MESSAGE, KMS.sign(imported.id(), MESSAGE).signatureBase64()),
                "the imported copy signs for the original's public key");
        SvcApiException wrongSet = assertThrows(SvcApiException.class,
                () -> KMS.importKey(KeySpec.mlDsa("java-ml-dsa-wrong", "ML-DSA-44"), exported.material()));
        assertEquals("InvalidField", wrongSet.code());
        assertTrue(wrongSet.getMessage().contains("the spec asks for ML-DSA-44"), wrongSet.getMessage());
    }

    @Test
    void slhDsaKeySignsAndAnUnknownSetIsRefused() {
        ManagedKey key = createOrRefused(KeySpec.slhDsa("java-slh-dsa", "SLH-DSA-SHA2-128f"));
        if (key == null) return;
        assertEquals("SLH-DSA-SHA2-128f", key.spec().parameterSet());
        assertEquals(128, key.spec().sizeBits());
        KMS.activate(key.id());
        SignResult signed = KMS.sign(key.id(), MESSAGE);
        assertEquals("SLH-DSA-SHA2-128f", signed.algorithm());
        assertTrue(KMS.verify(key.id(), MESSAGE, signed.signatureBase64()));
        SvcApiException unknown = assertThrows(SvcApiException.class, () -> KMS.createKey(KeySpec.slhDsa("java-slh-bad", "SLH-DSA-SHA2-129s")));
        assertEquals(400, unknown.status());
        assertEquals("InvalidField", unknown.code());
        if (KMS.listKeys(KeyQuery.all().withName("java-slh-bad")).keys().size() != 0) fail("a refused key was made");
    }
}
