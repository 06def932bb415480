package dev.svckms.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Data keys, re-encryption and batch encrypt against the real service test/clients/java-sdk.test.ts starts. */
class DataKeysTest {
    private static final SvcClient KMS = SvcClient.builder().baseUrl(System.getenv("SVC_TEST_URL")).bearerToken(System.getenv("SVC_TEST_TOKEN")).build();

    private static ManagedKey activeKey(String name) {
        ManagedKey key = KMS.createKey(KeySpec.aes(name, 256));
        KMS.activate(key.id());
        return key;
    }

    @Test
    void dataKeyDecryptsThroughDecryptAndMovesWithReencrypt() {
        ManagedKey key = activeKey("java-envelope");
        Map<String, String> context = Map.of("file", "report.pdf");
        DataKeyResult made = KMS.generateDataKey(key.id(), 128, context, true);
        byte[] dataKey = Base64.getDecoder().decode(made.plaintextBase64());
        assertEquals(16, dataKey.length);
        assertArrayEquals(dataKey, KMS.decrypt(key.id(), made.ciphertextBase64(), context));
        assertNull(KMS.generateDataKey(key.id(), 256, null, false).plaintextBase64(), "no plaintext when asked without");

        ManagedKey destination = activeKey("java-destination");
        ReencryptResult moved = KMS.reencrypt(key.id(), made.ciphertextBase64(), context, destination.id(), Map.of("file", "copy.pdf"));
        assertEquals(1, moved.sourceKeyVersion());
        assertArrayEquals(dataKey, KMS.decrypt(destination.id(), moved.ciphertextBase64(), Map.of("file", "copy.pdf")));
        SvcApiException wrong = assertThrows(SvcApiException.class, () -> KMS.reencrypt(key.id(), made.ciphertextBase64(), Map.of("file", "other"), null, null));
        assertEquals("DecryptionFailed", wrong.code());
    }

    @Test
    void encryptBatchAnswersEachItemInOrder() {
        ManagedKey key = activeKey("java-batch");
        byte[] first = "first".getBytes(StandardCharsets.UTF_8);
        byte[] tooLarge = new byte[64 * 1024 + 1];
        List<EncryptBatchResult> results = KMS.encryptBatch(key.id(), List.of(new EncryptItem(first, null), new EncryptItem(tooLarge, null), new EncryptItem(first, Map.of("n", "3"))));
        assertEquals(3, results.size());
        assertFalse(results.get(0).failed());
        assertArrayEquals(first, KMS.decrypt(key.id(), results.get(0).ciphertextBase64(), null));
        assertTrue(results.get(1).failed());
        assertEquals("InvalidField", results.get(1).error());
        assertNotNull(results.get(2).ciphertextBase64());
        assertArrayEquals(first, KMS.decrypt(key.id(), results.get(2).ciphertextBase64(), Map.of("n", "3")));
    }
}
