package dev.svckms.client;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.net.ssl.SSLContext;

/**
 * The svc-kms client for the JVM: one method per REST operation, thread-safe, reusable.
 *
 * <pre>{@code
 * SvcClient kms = SvcClient.builder().baseUrl("https://kms.internal:8443").bearerToken(jwt).build();
 * ManagedKey key = kms.createKey(KeySpec.aes("payments", 256));
 * kms.activate(key.id());
 * EncryptResult sealed = kms.encrypt(key.id(), data, Map.of("tenant", "acme"));
 * byte[] back = kms.decrypt(key.id(), sealed.ciphertextBase64(), Map.of("tenant", "acme"));
 * }</pre>
 *
 * Every failure is an unchecked {@link SvcApiException}. Aliases, tags, disable and enable, key-scoped
 * agents and the policy are the methods of {@link KeyModelCalls}, access keys those of {@link AccessKeyCalls},
 * which this class extends.
 */
public final class SvcClient extends AccessKeyCalls {
    private static final Base64.Encoder B64 = Base64.getEncoder();
    private static final Base64.Decoder UNB64 = Base64.getDecoder();

    private SvcClient(HttpTransport http) {
        super(http);
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * This client for the calls of one prompt: the same connections and credentials, with X-Svc-Model and
     * X-Svc-Prompt-Id set to these values (null: none), audited with each call as agent.model and agent.promptId.
     */
    public SvcClient withPrompt(String model, String promptId) {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put(MODEL_HEADER, model);
        headers.put(PROMPT_ID_HEADER, promptId);
        return new SvcClient(http.withHeaders(headers));
    }

    private static final String MODEL_HEADER = "X-Svc-Model";
    private static final String PROMPT_ID_HEADER = "X-Svc-Prompt-Id";

    // Key lifecycle

    public ManagedKey createKey(KeySpec spec) {
        return http.send("POST", "/v1/keys", null, Map.of("spec", spec), false, ManagedKey.class);
    }

    public ManagedKey getKey(String id) {
        return http.send("GET", key(id, ""), null, null, true, ManagedKey.class);
    }

    /** One page of the keys the caller may read, newest first; pass {@code nextCursor} to {@code withCursor} for the next. */
    public KeyPage listKeys(KeyQuery query) {
        return http.send("GET", "/v1/keys", (query == null ? KeyQuery.all() : query).parameters(), null, true, KeyPage.class);
    }

    /** Every key the query finds, reading page after page until the last one. */
    public List<ManagedKey> listAllKeys(KeyQuery query) {
        List<ManagedKey> keys = new ArrayList<>();
        KeyQuery next = query == null ? KeyQuery.all() : query;
        while (true) {
            KeyPage page = listKeys(next);
            keys.addAll(page.keys());
            if (!page.hasMore()) return keys;
            next = next.withCursor(page.nextCursor());
        }
    }

    public KeyStateChange activate(String id) {
        return http.send("POST", key(id, "/activate"), null, null, false, KeyStateChange.class);
    }

    public RotateResult rotate(String id) {
        return http.send("POST", key(id, "/rotate"), null, Map.of(), false, RotateResult.class);
    }

    /** Deactivates the key: it still decrypts and verifies, never encrypts or signs again. {@code reason} may be null. */
    public KeyStateChange revoke(String id, String reason) {
        return http.send("POST", key(id, "/revoke"), null, reason == null ? Map.of() : Map.of("reason", reason), false, KeyStateChange.class);
    }

    public KeyStateChange compromise(String id, String reason) {
        return http.send("POST", key(id, "/compromise"), null, Map.of("reason", reason), false, KeyStateChange.class);
    }

    /**
     * Erases the key's material for good; the key answers its Destroyed state from then on. Where the
     * deployment sets a default waiting period (or the caller is an agent) the destruction is scheduled
     * instead and the answer keeps the key's state: use {@link #destroy(String, int)} to read its date.
     */
    public KeyStateChange destroy(String id) {
        return http.send("DELETE", key(id, ""), null, null, false, KeyStateChange.class);
    }

    /**
     * Destroys the key after {@code waitingDays} (0..30; 0 destroys at once). An agent's destroy always
     * waits at least the deployment's agent minimum. While it waits the key serves no call, and a Human
     * may {@link #cancelDestroy(String) cancel}.
     */
    public DestroyResult destroy(String id, int waitingDays) {
        return http.send("DELETE", key(id, ""), Map.of("waitingDays", Integer.toString(waitingDays)), null, false, DestroyResult.class);
    }

    /** Cancels a scheduled destruction (Humans only): the key serves again in the state it had. */
    public CancelledDestruction cancelDestroy(String id) {
        return http.send("POST", key(id, "/cancel-destroy"), null, null, false, CancelledDestruction.class);
    }

    /** Erases for good every version below {@code minVersion} (2..current version); Humans and Services only. */
    public TrimResult trim(String id, int minVersion) {
        return http.send("POST", key(id, "/trim"), null, Map.of("minVersion", minVersion), false, TrimResult.class);
    }

    // Cryptographic operations

    public EncryptResult encrypt(String id, byte[] plaintext, Map<String, String> context) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("plaintextBase64", B64.encodeToString(plaintext));
        if (context != null) body.put("context", context);
        return http.send("POST", key(id, "/encrypt"), null, body, false, EncryptResult.class);
    }

    /** The plaintext; the context must be the one given to encrypt. */
    public byte[] decrypt(String id, String ciphertextBase64, Map<String, String> context) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("ciphertextBase64", ciphertextBase64);
        if (context != null) body.put("context", context);
        return UNB64.decode(http.send("POST", key(id, "/decrypt"), null, body, true, DecryptAnswer.class).plaintextBase64());
    }

    public SignResult sign(String id, byte[] message) {
        return http.send("POST", key(id, "/sign"), null, Map.of("messageBase64", B64.encodeToString(message)), false, SignResult.class);
    }

    public boolean verify(String id, byte[] message, String signatureBase64) {
        Map<String, Object> body = Map.of("messageBase64", B64.encodeToString(message), "signatureBase64", signatureBase64);
        return http.send("POST", key(id, "/verify"), null, body, true, VerifyAnswer.class).valid();
    }

    /**
     * Signs the hash of a message computed here (RSA and ECDSA; as long as the algorithm's hash): the
     * signature the message itself would get. algorithm, for example "RsaPkcs1Sha256"; null: the key's own.
     */
    public SignResult signDigest(String id, byte[] digest, String algorithm) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("digestBase64", B64.encodeToString(digest));
        if (algorithm != null) body.put("algorithm", algorithm);
        return http.send("POST", key(id, "/sign"), null, body, false, SignResult.class);
    }

    /** Checks a signature against the hash of the message, as signDigest sends it; algorithm null: the key's own. */
    public boolean verifyDigest(String id, byte[] digest, String signatureBase64, String algorithm) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("digestBase64", B64.encodeToString(digest));
        body.put("signatureBase64", signatureBase64);
        if (algorithm != null) body.put("algorithm", algorithm);
        return http.send("POST", key(id, "/verify"), null, body, true, VerifyAnswer.class).valid();
    }

    /** Wraps a data key (16..512 bytes, a multiple of 8) under an AES key. */
    public WrapResult wrap(String id, byte[] dataKey) {
        return http.send("POST", key(id, "/wrap"), null, Map.of("dekBase64", B64.encodeToString(dataKey)), false, WrapResult.class);
    }

    /** The data key, byte for byte the one wrapped. */
    public byte[] unwrap(String id, String wrappedDekBase64) {
        return UNB64.decode(http.send("POST", key(id, "/unwrap"), null, Map.of("wrappedDekBase64", wrappedDekBase64), true, UnwrapAnswer.class).dekBase64());
    }

    // Export and import (bring your own key): Humans and Services only

    /** The current version's material of a key created exportable. */
    public ExportedKey exportKey(String id) {
        return http.send("POST", key(id, "/export"), null, Map.of(), true, ExportedKey.class);
    }

    /** One version's material of a key created exportable. */
    public ExportedKey exportKey(String id, int version) {
        return http.send("POST", key(id, "/export"), null, Map.of("version", version), true, ExportedKey.class);
    }

    /** A wrapping key and a single-use token for material of this algorithm and size or curve ({@code sizeBits} and {@code curve} may be null). */
    public ImportParameters getImportParameters(String algorithm, Integer sizeBits, String curve) {
        return getImportParameters(algorithm, sizeBits, curve, null);
    }

    /**
     * The same for an ML-DSA or SLH-DSA key: {@code parameterSet} names its set ({@code ML-DSA-65}...; null
     * for other algorithms). Any of {@code sizeBits}, {@code curve} and {@code parameterSet} may be null.
     */
    public ImportParameters getImportParameters(String algorithm, Integer sizeBits, String curve, String parameterSet) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("algorithm", algorithm);
        if (sizeBits != null) body.put("sizeBits", sizeBits);
        if (curve != null) body.put("curve", curve);
        if (parameterSet != null) body.put("parameterSet", parameterSet);
        return http.send("POST", "/v1/keys/import-parameters", null, body, false, ImportParameters.class);
    }

    /** Creates a key (PreActive, origin "imported") from material wrapped with {@link KeyMaterialWrapping#wrap} under {@code importToken}'s parameters. */
    public ManagedKey importWrappedKey(KeySpec spec, String importToken, byte[] wrappedMaterial) {
        Map<String, Object> body = Map.of("spec", spec, "importToken", importToken, "wrappedMaterialBase64", B64.encodeToString(wrappedMaterial));
        return http.send("POST", "/v1/keys/import", null, body, false, ManagedKey.class);
    }

    /**
     * Imports plain material: fetches import parameters for the spec's type, wraps the material here
     * (it never travels unwrapped) and imports it. {@code material} is the raw secret for AES and HMAC,
     * the private key as PKCS#8 DER ({@code PrivateKey.getEncoded()}) for RSA, EC, EdDSA, ML-DSA and SLH-DSA.
     */
    public ManagedKey importKey(KeySpec spec, byte[] material) {
        ImportParameters parameters = getImportParameters(spec.algorithm(), spec.sizeBits(), spec.curve(), spec.parameterSet());
        return importWrappedKey(spec, parameters.importToken(), KeyMaterialWrapping.wrap(parameters.wrappingPublicKeyPem(), material));
    }

    // Data keys, re-encryption and batches

    /** A fresh data key of {@code sizeBits} (128, 192 or 256) and its ciphertext under the key; without {@code plaintext}, the ciphertext only. */
    public DataKeyResult generateDataKey(String id, int sizeBits, Map<String, String> context, boolean plaintext) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("sizeBits", sizeBits);
        if (context != null) body.put("context", context);
        body.put("plaintext", plaintext);
        return http.send("POST", key(id, "/data-key"), null, body, false, DataKeyResult.class);
    }

    /**
     * Decrypts under {@code id} and encrypts under {@code destinationKeyId} (null: the same key, its current
     * version) inside the service; {@code destinationContext} null keeps the context.
     */
    public ReencryptResult reencrypt(String id, String ciphertextBase64, Map<String, String> context, String destinationKeyId, Map<String, String> destinationContext) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("ciphertextBase64", ciphertextBase64);
        if (context != null) body.put("context", context);
        if (destinationKeyId != null) body.put("destinationKeyId", destinationKeyId);
        if (destinationContext != null) body.put("destinationContext", destinationContext);
        return http.send("POST", key(id, "/reencrypt"), null, body, false, ReencryptResult.class);
    }

    /** Up to 1000 items in one call; the answers come in the items' order, a failed item as its error. */
    public List<EncryptBatchResult> encryptBatch(String id, List<EncryptItem> items) {
        List<Map<String, Object>> bodies = new ArrayList<>();
        for (EncryptItem item : items) {
            Map<String, Object> body = new LinkedHashMap<>();
            body.put("plaintextBase64", B64.encodeToString(item.plaintext()));
            if (item.context() != null) body.put("context", item.context());
            bodies.add(body);
        }
        return List.of(http.send("POST", key(id, "/encrypt"), null, Map.of("items", bodies), false, EncryptBatchAnswer.class).results());
    }

    // Agents and audit

    /**
     * Issues a short-lived AI agent token for the calling Human: {@code scopes} are operation names
     * (never more than the caller may do), {@code ttlSeconds} 1..86400.
     */
    public IssuedAgent issueAgent(String label, List<String> scopes, int ttlSeconds) {
        Map<String, Object> body = Map.of("label", label, "scopes", scopes, "ttlSeconds", ttlSeconds);
        return http.send("POST", "/v1/agents/issue", null, body, false, IssuedAgent.class);
    }

    public AuditPage queryAudit(AuditQuery query) {
        return http.send("GET", "/v1/audit", (query == null ? AuditQuery.all() : query).parameters(), null, true, AuditPage.class);
    }

    private static String key(String id, String rest) {
        return "/v1/keys/" + URLEncoder.encode(id, StandardCharsets.UTF_8).replace("+", "%20") + rest;
    }

    private record EncryptBatchAnswer(EncryptBatchResult[] results) {
    }

    private record DecryptAnswer(String plaintextBase64, int keyVersion) {
    }

    private record VerifyAnswer(boolean valid, String algorithm, Integer keyVersion) {
    }

    private record UnwrapAnswer(String dekBase64, int keyVersion) {
    }

    /** Where the service is and who calls it. */
    public static final class Builder {
        private URI baseUrl;
        private final Map<String, String> credentials = new LinkedHashMap<>();
        private Duration timeout = Duration.ofSeconds(10);
        private SSLContext sslContext;
        private final Map<String, String> prompt = new LinkedHashMap<>();

        private Builder() {
        }

        /** For example {@code https://kms.internal:8443}. */
        public Builder baseUrl(String url) {
            URI parsed = URI.create(url.endsWith("/") ? url : url + "/");
            if (!"http".equals(parsed.getScheme()) && !"https".equals(parsed.getScheme())) {
                throw new IllegalArgumentException("baseUrl must be an http or https URL, not " + url);
            }
            this.baseUrl = parsed;
            return this;
        }

        /** Development mode only (SVC_AUTH_KIND=dev): the caller's name, sent as X-Svc-User. */
        public Builder devUser(String name) {
            credentials.clear();
            credentials.put("X-Svc-User", name);
            return this;
        }

        /** A bearer token: HMAC or OIDC tokens, or an agent token from issueAgent. */
        public Builder bearerToken(String jwt) {
            credentials.clear();
            credentials.put("Authorization", "Bearer " + jwt);
            return this;
        }

        /** The model every call acts for, sent as X-Svc-Model and audited as agent.model (at most 128 characters, no control characters). */
        public Builder model(String name) {
            prompt.put(MODEL_HEADER, name);
            return this;
        }

        /** The prompt every call acts for, sent as X-Svc-Prompt-Id and audited as agent.promptId; {@link SvcClient#withPrompt} changes it per prompt. */
        public Builder promptId(String id) {
            prompt.put(PROMPT_ID_HEADER, id);
            return this;
        }

        /** Per-attempt timeout, from sending the request to the last byte of the answer; 10 s by default. */
        public Builder timeout(Duration value) {
            this.timeout = value;
            return this;
        }

        /** TLS with a private CA or a client certificate (mutual TLS); the JVM's default trust otherwise. */
        public Builder sslContext(SSLContext context) {
            this.sslContext = context;
            return this;
        }

        public SvcClient build() {
            if (baseUrl == null) throw new IllegalStateException("baseUrl is required");
            HttpClient.Builder http = HttpClient.newBuilder().connectTimeout(timeout).version(HttpClient.Version.HTTP_1_1);
            if (sslContext != null) http.sslContext(sslContext);
            ObjectMapper json = new ObjectMapper()
                    .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false)
                    .setSerializationInclusion(JsonInclude.Include.NON_NULL);
            return new SvcClient(new HttpTransport(http.build(), json, baseUrl, Map.copyOf(credentials), timeout).withHeaders(prompt));
        }
    }
}
