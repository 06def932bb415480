package dev.svckms.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.spec.ECGenParameterSpec;
import java.util.Base64;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;

/** Import (bring your own key) and export against the real service at SVC_TEST_URL (see SvcClientTest). */
class KeyTransferTest {
    private static final SvcClient KMS = SvcClient.builder().baseUrl(System.getenv("SVC_TEST_URL")).bearerToken(System.getenv("SVC_TEST_TOKEN")).build();
    private static final byte[] MESSAGE = "pay 10 EUR to Bob".getBytes(StandardCharsets.UTF_8);

    @Test
    void importedHmacKeyComputesWhatTheJdkComputesAndExportsTheSameBytes() throws Exception {
        byte[] secret = new byte[32];
        new SecureRandom().nextBytes(secret);
        ManagedKey key = KMS.importKey(KeySpec.hmac("java-imported-hmac", 256).asExportable(), secret);
        assertEquals("PreActive", key.state());
        assertEquals("imported", key.origin());
        assertTrue(key.spec().exportable());
        KMS.activate(key.id());
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(secret, "HmacSHA256"));
        assertArrayEquals(mac.doFinal(MESSAGE), Base64.getDecoder().decode(KMS.sign(key.id(), MESSAGE).signatureBase64()));
        ExportedKey exported = KMS.exportKey(key.id());
        assertEquals("raw", exported.format());
        assertEquals(1, exported.keyVersion());
        assertArrayEquals(secret, exported.material());
        assertArrayEquals(secret, KMS.exportKey(key.id(), 1).material());
    }

    @Test
    void importedEcKeySignsForTheJdksPublicKey() throws Exception {
        KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
        generator.initialize(new ECGenParameterSpec("secp256r1"));
        KeyPair pair = generator.generateKeyPair();
        ImportParameters parameters = KMS.getImportParameters("EC", null, "P-256");
        assertEquals("RSA_AES_KEY_WRAP_SHA_256", parameters.wrappingAlgorithm());
        byte[] wrapped = KeyMaterialWrapping.wrap(parameters.wrappingPublicKeyPem(), pair.getPrivate().getEncoded());
        ManagedKey key = KMS.importWrappedKey(KeySpec.ec("java-imported-ec", "P-256"), parameters.importToken(), wrapped);
        KMS.activate(key.id());
        Signature verifier = Signature.getInstance("SHA256withECDSA");
        verifier.initVerify(pair.getPublic());
        verifier.update(MESSAGE);
        assertTrue(verifier.verify(Base64.getDecoder().decode(KMS.sign(key.id(), MESSAGE).signatureBase64())));
        SvcApiException spent = assertThrows(SvcApiException.class, () -> KMS.importWrappedKey(KeySpec.ec("again", "P-256"), parameters.importToken(), wrapped));
        assertEquals(400, spent.status());
        assertEquals("InvalidField", spent.code());
        SvcApiException notExportable = assertThrows(SvcApiException.class, () -> KMS.exportKey(key.id()));
        assertEquals("IllegalOperation", notExportable.code());
    }
}
