package dev.svckms.client;

import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.spec.MGF1ParameterSpec;
import java.security.spec.X509EncodedKeySpec;
import java.util.Arrays;
import java.util.Base64;
import javax.crypto.Cipher;
import javax.crypto.spec.OAEPParameterSpec;
import javax.crypto.spec.PSource;
import javax.crypto.spec.SecretKeySpec;

/**
 * RSA_AES_KEY_WRAP_SHA_256, the wrapping {@code POST /v1/keys/import} takes: a fresh AES-256 key,
 * RSA-OAEP with SHA-256 and MGF1 SHA-256 under the import parameters' public key, followed by the
 * material under that AES key with AES key wrap with padding (RFC 5649, the JDK's AES/KWP/NoPadding).
 */
public final class KeyMaterialWrapping {
    private static final SecureRandom RANDOM = new SecureRandom();

    private KeyMaterialWrapping() {
    }

    /** {@code material}: the raw secret for AES and HMAC, the private key as PKCS#8 DER ({@code PrivateKey.getEncoded()}) otherwise. */
    public static byte[] wrap(String wrappingPublicKeyPem, byte[] material) {
        byte[] aesKey = new byte[32];
        RANDOM.nextBytes(aesKey);
        try {
            // The OAEP parameters are explicit: "OAEPWithSHA-256AndMGF1Padding" alone would use MGF1 with SHA-1.
            Cipher rsa = Cipher.getInstance("RSA/ECB/OAEPPadding");
            rsa.init(Cipher.ENCRYPT_MODE, publicKey(wrappingPublicKeyPem), new OAEPParameterSpec("SHA-256", "MGF1", MGF1ParameterSpec.SHA256, PSource.PSpecified.DEFAULT));
            byte[] encryptedKey = rsa.doFinal(aesKey);
            Cipher kwp = Cipher.getInstance("AES/KWP/NoPadding");
            kwp.init(Cipher.ENCRYPT_MODE, new SecretKeySpec(aesKey, "AES"));
            byte[] wrappedMaterial = kwp.doFinal(material);
            byte[] out = Arrays.copyOf(encryptedKey, encryptedKey.length + wrappedMaterial.length);
            System.arraycopy(wrappedMaterial, 0, out, encryptedKey.length, wrappedMaterial.length);
            return out;
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException("cannot wrap the material: " + e.getMessage(), e);
        } finally {
            Arrays.fill(aesKey, (byte) 0);
        }
    }

    private static PublicKey publicKey(String pem) throws GeneralSecurityException {
        String body = pem.replace("-----BEGIN PUBLIC KEY-----", "").replace("-----END PUBLIC KEY-----", "").replaceAll("\\s", "");
        return KeyFactory.getInstance("RSA").generatePublic(new X509EncodedKeySpec(Base64.getDecoder().decode(body)));
    }
}
