package dev.svckms.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Runs against a real service: SVC_TEST_URL with HMAC tokens (SVC_TEST_TOKEN is a Human's) and a
 * queryable audit sink, SVC_TEST_DEV_URL in development mode. test/clients/java-sdk.test.ts starts both.
 */
class SvcClientTest {
    private static final String URL = required("SVC_TEST_URL");
    private static final SvcClient KMS = SvcClient.builder().baseUrl(URL).bearerToken(required("SVC_TEST_TOKEN")).build();
    private static final byte[] MESSAGE = "pay 10 EUR to Bob".getBytes(StandardCharsets.UTF_8);

    private static String required(String name) {
        String value = System.getenv(name);
        if (value == null || value.isEmpty()) throw new IllegalStateException(name + " is not set: run through test/clients/java-sdk.test.ts");
        return value;
    }

    private static ManagedKey activeKey(KeySpec spec) {
        ManagedKey key = KMS.createKey(spec);
        assertEquals("PreActive", key.state());
        assertEquals("Active", KMS.activate(key.id()).state());
        return key;
    }

    @Test
    void destroyWaitsAndIsCancelledAndOldVersionsAreTrimmed() {
        ManagedKey key = activeKey(KeySpec.aes("java-retiring", 256));
        EncryptResult old = KMS.encrypt(key.id(), MESSAGE, null);
        KMS.rotate(key.id());
        TrimResult trimmed = KMS.trim(key.id(), 2);
        assertEquals(2, trimmed.minVersion());
        assertEquals("complete", trimmed.erasure());
        assertEquals(2, KMS.getKey(key.id()).minVersion());
        SvcApiException gone = assertThrows(SvcApiException.class, () -> KMS.decrypt(key.id(), old.ciphertextBase64(), null));
        assertEquals(409, gone.status());
        assertTrue(gone.getMessage().contains("was trimmed"), gone.getMessage());
        assertEquals(400, assertThrows(SvcApiException.class, () -> KMS.trim(key.id(), 3)).status(), "past the current version");

        KMS.revoke(key.id(), null);
        DestroyResult scheduled = KMS.destroy(key.id(), 7);
        assertTrue(scheduled.scheduled());
        assertEquals("Deactivated", scheduled.state());
        assertEquals(scheduled.destroyAt(), KMS.getKey(key.id()).destroyAt());
        assertEquals(409, assertThrows(SvcApiException.class, () -> KMS.destroy(key.id(), 0)).status(), "a later request never moves the date");
        assertEquals(scheduled.destroyAt(), KMS.cancelDestroy(key.id()).cancelledDestroyAt());
        assertEquals(null, KMS.getKey(key.id()).destroyAt());
        assertEquals(400, assertThrows(SvcApiException.class, () -> KMS.destroy(key.id(), 31)).status());
        DestroyResult destroyed = KMS.destroy(key.id(), 0);
        assertFalse(destroyed.scheduled());
        assertEquals("Destroyed", destroyed.state());
    }

    @Test
    void aesKeyGoesThroughItsWholeLifecycle() {
        ManagedKey key = activeKey(KeySpec.aes("java-payments", 256));
        assertEquals("AES", key.spec().algorithm());
        assertEquals(256, key.spec().sizeBits());
        assertEquals(1, key.currentVersion());
        Map<String, String> context = Map.of("tenant", "acme");

        EncryptResult sealed = KMS.encrypt(key.id(), MESSAGE, context);
        assertEquals(1, sealed.keyVersion());
        assertArrayEquals(MESSAGE, KMS.decrypt(key.id(), sealed.ciphertextBase64(), context));
        SvcApiException wrongContext = assertThrows(SvcApiException.class, () -> KMS.decrypt(key.id(), sealed.ciphertextBase64(), Map.of("tenant", "evil")));
        assertEquals("DecryptionFailed", wrongContext.code());
        assertEquals(400, wrongContext.status());

        RotateResult rotated = KMS.rotate(key.id());
        assertEquals(1, rotated.previousVersion());
        assertEquals(2, rotated.currentVersion());
        assertEquals(2, KMS.getKey(key.id()).currentVersion());
        assertArrayEquals(MESSAGE, KMS.decrypt(key.id(), sealed.ciphertextBase64(), context), "the old version still decrypts");

        KeyStateChange revoked = KMS.revoke(key.id(), "retired");
        assertEquals("Deactivated", revoked.state());
        assertEquals("retired", revoked.reason());
        assertNotNull(revoked.changedAt());
        assertEquals("IllegalOperation", assertThrows(SvcApiException.class, () -> KMS.encrypt(key.id(), MESSAGE, context)).code());

        assertEquals("Destroyed", KMS.destroy(key.id()).state());
        ManagedKey destroyed = KMS.getKey(key.id());
        assertEquals("Destroyed", destroyed.state());
        assertNotNull(destroyed.destroyedAt());
    }

    @Test
    void signaturesVerifyForEveryAsymmetricAndMacFamily() {
        for (KeySpec spec : List.of(KeySpec.ed25519("java-ed"), KeySpec.ec("java-ec", "P-256"), KeySpec.rsa("java-rsa", 2048), KeySpec.hmac("java-mac", 256))) {
            ManagedKey key = activeKey(spec);
            SignResult signed = KMS.sign(key.id(), MESSAGE);
            assertEquals(1, signed.keyVersion());
            assertTrue(KMS.verify(key.id(), MESSAGE, signed.signatureBase64()), spec.algorithm() + " verifies its own signature");
            assertFalse(KMS.verify(key.id(), "pay 1000 EUR to Eve".getBytes(StandardCharsets.UTF_8), signed.signatureBase64()), spec.algorithm() + " refuses another message");
        }
    }

    @Test
    void aDigestSignedIsTheMessagesSignature() throws Exception {
        ManagedKey key = activeKey(KeySpec.ec("java-digest", "P-384"));
        byte[] digest = java.security.MessageDigest.getInstance("SHA-384").digest(MESSAGE);
        SignResult signed = KMS.signDigest(key.id(), digest, null);
        assertEquals("EcdsaSha384", signed.algorithm());
        assertTrue(KMS.verify(key.id(), MESSAGE, signed.signatureBase64()), "the digest's signature verifies as the message's");
        SignResult overMessage = KMS.sign(key.id(), MESSAGE);
        assertTrue(KMS.verifyDigest(key.id(), digest, overMessage.signatureBase64(), "EcdsaSha384"), "the message's signature verifies by digest");
        byte[] other = java.security.MessageDigest.getInstance("SHA-384").digest("pay 1000 EUR to Eve".getBytes(StandardCharsets.UTF_8));
        assertFalse(KMS.verifyDigest(key.id(), other, signed.signatureBase64(), null), "another digest is not valid");
        SvcApiException tooShort = assertThrows(SvcApiException.class, () -> KMS.signDigest(key.id(), new byte[32], null));
        assertEquals(400, tooShort.status());
        assertEquals("InvalidField", tooShort.code());
    }

    @Test
    void wrapAndUnwrapGiveBackTheSameDataKey() {
        ManagedKey key = activeKey(KeySpec.aes("java-kek", 256));
        byte[] dataKey = new byte[32];
        new java.security.SecureRandom().nextBytes(dataKey);
        WrapResult wrapped = KMS.wrap(key.id(), dataKey);
        assertArrayEquals(dataKey, KMS.unwrap(key.id(), wrapped.wrappedDekBase64()));
    }

    @Test
    void compromiseStopsUseAndKeepsTheReason() {
        ManagedKey key = activeKey(KeySpec.ec("java-leaked", "P-384"));
        KeyStateChange compromised = KMS.compromise(key.id(), "found in a public repository");
        assertEquals("Compromised", compromised.state());
        assertEquals("found in a public repository", KMS.getKey(key.id()).reason());
        assertEquals("IllegalOperation", assertThrows(SvcApiException.class, () -> KMS.sign(key.id(), MESSAGE)).code());
    }

    @Test
    void errorsCarryTheServiceCodeStatusAndMessage() {
        SvcApiException missing = assertThrows(SvcApiException.class, () -> KMS.getKey("00000000-0000-4000-8000-000000000000"));
        assertEquals("KeyNotFound", missing.code());
        assertEquals(404, missing.status());
        assertFalse(missing.getMessage().isEmpty());

        SvcApiException badSize = assertThrows(SvcApiException.class, () -> KMS.createKey(KeySpec.aes("odd", 100)));
        assertEquals("InvalidField", badSize.code());

        SvcClient stranger = SvcClient.builder().baseUrl(URL).bearerToken("not-a-token").build();
        SvcApiException refused = assertThrows(SvcApiException.class, () -> stranger.getKey("00000000-0000-4000-8000-000000000000"));
        assertEquals("Unauthorized", refused.code());
        assertEquals(401, refused.status());

        SvcClient nobody = SvcClient.builder().baseUrl("http://127.0.0.1:9").timeout(java.time.Duration.ofSeconds(2)).build();
        SvcApiException network = assertThrows(SvcApiException.class, () -> nobody.getKey("00000000-0000-4000-8000-000000000000"));
        assertEquals("NetworkError", network.code());
        assertEquals(0, network.status());
    }

    @Test
    void anAgentTokenDoesWhatItsScopesAllowAndNothingElse() {
        ManagedKey key = activeKey(KeySpec.aes("java-agent-key", 256));
        IssuedAgent agent = KMS.issueAgent("java-encryptor", List.of("Encrypt"), 300);
        assertTrue(agent.agentId().startsWith("agent-"));
        assertFalse(agent.toString().contains(agent.jwt()), "the token never shows in toString");
        SvcClient asAgent = SvcClient.builder().baseUrl(URL).bearerToken(agent.jwt()).build();
        assertEquals(1, asAgent.encrypt(key.id(), MESSAGE, null).keyVersion());
        SvcApiException denied = assertThrows(SvcApiException.class, () -> asAgent.destroy(key.id()));
        assertEquals("PermissionDenied", denied.code());
        assertEquals("Active", KMS.getKey(key.id()).state(), "the refused destroy changed nothing");
    }

    @Test
    void theAuditTrailNamesWhatWasDone() {
        ManagedKey key = activeKey(KeySpec.hmac("java-audited", 256));
        KMS.sign(key.id(), MESSAGE);
        AuditPage page = KMS.queryAudit(AuditQuery.all().withKey(key.id()).withPage(10, 0));
        List<String> operations = page.records().stream().map(AuditRecord::operation).toList();
        assertEquals(List.of("Sign", "Activate", "Create"), operations, "newest first");
        AuditRecord signed = page.records().get(0);
        assertEquals("Success", signed.outcome());
        assertEquals("Human", signed.principal().kind());
        assertFalse(page.hasMore());
        assertEquals(1, KMS.queryAudit(AuditQuery.all().withKey(key.id()).withOperation("Sign")).records().size());
    }

    @Test
    void modelAndPromptIdAreAuditedAndFoundByPromptId() {
        ManagedKey key = activeKey(KeySpec.hmac("java-prompted", 256));
        SvcClient tagged = SvcClient.builder().baseUrl(URL).bearerToken(required("SVC_TEST_TOKEN")).model("java-model").promptId("java-prompt-1").build();
        tagged.sign(key.id(), MESSAGE);
        tagged.withPrompt("java-model-2", "java-prompt-2").getKey(key.id());
        List<AuditRecord> first = KMS.queryAudit(AuditQuery.all().withPromptId("java-prompt-1")).records();
        assertEquals(List.of("Sign"), first.stream().map(AuditRecord::operation).toList(), "exactly the builder's prompt");
        assertEquals("java-model", first.get(0).context().get("agent.model"));
        List<AuditRecord> second = KMS.queryAudit(AuditQuery.all().withPromptId("java-prompt-2")).records();
        assertEquals(List.of("Get"), second.stream().map(AuditRecord::operation).toList(), "withPrompt names the calls of another prompt");
        assertEquals("java-model-2", second.get(0).context().get("agent.model"));
        SvcApiException refused = assertThrows(SvcApiException.class, () -> KMS.withPrompt(null, "p".repeat(129)).getKey(key.id()));
        assertEquals("InvalidField", refused.code());
    }

    @Test
    void devUserSpeaksAsTheNamedHumanInDevelopmentMode() {
        SvcClient dev = SvcClient.builder().baseUrl(required("SVC_TEST_DEV_URL")).devUser("alice").build();
        ManagedKey key = dev.createKey(KeySpec.ed25519("java-dev"));
        assertEquals("alice", key.owner());
        assertEquals("Active", dev.activate(key.id()).state());
        assertTrue(dev.verify(key.id(), MESSAGE, dev.sign(key.id(), MESSAGE).signatureBase64()));
    }

    @Test
    void listKeysFindsKeysByFiltersAndPagesToTheEnd() {
        String prefix = "java-list-" + System.nanoTime() + "-";
        List<String> made = new java.util.ArrayList<>();
        for (int i = 0; i < 3; i++) made.add(KMS.createKey(KeySpec.aes(prefix + i, 256)).id());
        KMS.activate(made.get(1));
        KeyPage first = KMS.listKeys(KeyQuery.all().withName(prefix + "*").withLimit(2));
        assertEquals(List.of(made.get(2), made.get(1)), first.keys().stream().map(ManagedKey::id).toList(), "newest first");
        assertTrue(first.hasMore());
        KeyPage second = KMS.listKeys(KeyQuery.all().withName(prefix + "*").withLimit(2).withCursor(first.nextCursor()));
        assertEquals(List.of(made.get(0)), second.keys().stream().map(ManagedKey::id).toList());
        assertFalse(second.hasMore());
        assertEquals(List.of(made.get(2), made.get(1), made.get(0)), KMS.listAllKeys(KeyQuery.all().withName(prefix + "*").withLimit(1)).stream().map(ManagedKey::id).toList(), "every page");
        assertEquals(List.of(made.get(1)), KMS.listKeys(KeyQuery.all().withName(prefix + "*").withState("Active")).keys().stream().map(ManagedKey::id).toList());
        SvcApiException bad = assertThrows(SvcApiException.class, () -> KMS.listKeys(KeyQuery.all().withCursor("forged!")));
        assertEquals("InvalidField", bad.code());
        assertEquals(400, bad.status());
    }
}
