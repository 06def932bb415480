package dev.svckms.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Aliases, tags, disable and enable, and key-scoped agents against the service with role-based policy that
 * test/clients/java-sdk.test.ts starts (SVC_TEST_MODEL_URL: a Human's and a Service's token, both bound to
 * every operation; the risk gate off, as the agent's calls here are about key patterns).
 */
class KeyModelTest {
    static final String URL = System.getenv("SVC_TEST_MODEL_URL");
    static final SvcClient KMS = client(System.getenv("SVC_TEST_MODEL_TOKEN"));
    static final SvcClient SERVICE = client(System.getenv("SVC_TEST_MODEL_SERVICE_TOKEN"));
    private static final byte[] MESSAGE = "pay 10 EUR to Bob".getBytes(StandardCharsets.UTF_8);

    private static SvcClient client(String token) {
        return SvcClient.builder().baseUrl(URL).bearerToken(token).build();
    }

    private static List<String> names(List<Alias> aliases) {
        return aliases.stream().map(Alias::name).toList();
    }

    private static ManagedKey activeKey(KeySpec spec) {
        ManagedKey key = KMS.createKey(spec);
        KMS.activate(key.id());
        return key;
    }

    private static String unique(String name) {
        return name + "-" + UUID.randomUUID();
    }

    @Test
    void aliasesNameKeysAndMove() {
        ManagedKey first = activeKey(KeySpec.aes(unique("java-alias-1"), 256));
        ManagedKey second = activeKey(KeySpec.aes(unique("java-alias-2"), 256));
        String name = "alias/" + unique("java-billing");
        Alias created = KMS.putAlias(name, first.id(), true);
        assertEquals(first.id(), created.keyId());
        assertNull(created.previousKeyId());
        assertEquals(List.of(name), KMS.getKey(name).aliases(), "getKey takes the alias, and lists it");
        EncryptResult sealed = KMS.encrypt(name, MESSAGE, null);
        assertArrayEquals(MESSAGE, KMS.decrypt(first.id(), sealed.ciphertextBase64(), null));

        assertEquals(409, assertThrows(SvcApiException.class, () -> KMS.putAlias(name, second.id(), true)).status());
        Alias moved = KMS.putAlias(name, second.id(), false);
        assertEquals(first.id(), moved.previousKeyId());
        assertEquals(List.of(), KMS.listAliases(first.id(), null, null).aliases());
        assertEquals(name, KMS.listAliases(second.id(), null, null).aliases().get(0).name());

        for (String more : List.of("a", "b", "c")) KMS.putAlias(name + "-" + more, first.id(), false);
        AliasPage page = KMS.listAliases(first.id(), null, 2);
        assertEquals(List.of(name + "-a", name + "-b"), names(page.aliases()));
        assertTrue(page.hasMore());
        assertEquals(List.of(name + "-c"), names(KMS.listAliases(first.id(), page.nextAfter(), 2).aliases()));
        assertEquals(3, KMS.listAllAliases(first.id()).size());

        assertEquals(second.id(), KMS.deleteAlias(name).keyId());
        SvcApiException gone = assertThrows(SvcApiException.class, () -> KMS.deleteAlias(name));
        assertEquals("NotFound", gone.code());
    }

    @Test
    void tagsAreSetMergedRemovedAndFound() {
        String team = unique("java-team");
        KeySpec prodSpec = KeySpec.aes(unique("java-tagged"), 256).withTags(Map.of("team", team, "env", "prod"));
        ManagedKey prod = activeKey(prodSpec);
        KeySpec stagingSpec = KeySpec.aes(unique("java-staging"), 256).withTags(Map.of("team", team, "env", "staging"));
        ManagedKey staging = activeKey(stagingSpec);
        assertEquals(Map.of("team", team, "env", "prod"), KMS.getKey(prod.id()).tags());
        KeyTags merged = KMS.tagKey(prod.id(), Map.of("env", "prod-eu", "owner", "ana"));
        assertEquals(Map.of("team", team, "env", "prod-eu", "owner", "ana"), merged.tags());
        KeyTags left = KMS.untagKey(prod.id(), List.of("owner", "absent"));
        assertEquals(Map.of("team", team, "env", "prod-eu"), left.tags());

        List<ManagedKey> found = KMS.listAllKeys(KeyQuery.all().withTag("team", team));
        List<String> both = found.stream().map(ManagedKey::id).sorted().toList();
        assertEquals(List.of(prod.id(), staging.id()).stream().sorted().toList(), both);
        List<ManagedKey> one = KMS.listKeys(KeyQuery.all().withTag("team", team).withTag("env", "staging")).keys();
        assertEquals(List.of(staging.id()), one.stream().map(ManagedKey::id).toList(), "every tag must match");

        SvcApiException comma = assertThrows(SvcApiException.class, () -> KMS.untagKey(prod.id(), List.of("a,b")));
        assertEquals(0, comma.status(), "refused before anything is sent");
    }

    @Test
    void disablePausesTheKeyAndOnlyAHumanEnablesIt() {
        ManagedKey key = activeKey(KeySpec.aes(unique("java-paused"), 256));
        assertFalse(key.disabled());
        KeyEnabled paused = KMS.disableKey(key.id(), "suspected leak");
        assertFalse(paused.enabled());
        assertEquals("Active", paused.state());
        assertEquals("suspected leak", paused.disabledReason());
        assertNotNull(paused.disabledAt());
        ManagedKey read = KMS.getKey(key.id());
        assertTrue(read.disabled());
        assertEquals("suspected leak", read.disabledReason());
        SvcApiException refused = assertThrows(SvcApiException.class, () -> KMS.encrypt(key.id(), MESSAGE, null));
        assertEquals("IllegalOperation", refused.code());
        assertTrue(refused.getMessage().contains("disabled"), refused.getMessage());
        SvcApiException service = assertThrows(SvcApiException.class, () -> SERVICE.enableKey(key.id()));
        assertEquals(403, service.status(), "a Service may not");
        assertTrue(KMS.enableKey(key.id()).enabled());
        assertEquals(1, KMS.encrypt(key.id(), MESSAGE, null).keyVersion());
    }

    @Test
    void aKeyScopedAgentReachesOnlyItsKeys() {
        ManagedKey mine = activeKey(KeySpec.aes(unique("java-agent-mine"), 256));
        ManagedKey other = activeKey(KeySpec.aes(unique("java-agent-other"), 256));
        String name = unique("java-agent-target");
        KMS.putAlias("alias/" + name, mine.id(), true);
        IssuedAgent agent = KMS.issueAgent("one-key bot", List.of("Encrypt"), 600, List.of("alias:" + name));
        SvcClient bot = SvcClient.builder().baseUrl(URL).bearerToken(agent.jwt()).build();
        assertEquals(1, bot.encrypt("alias/" + name, MESSAGE, null).keyVersion());
        assertEquals(403, assertThrows(SvcApiException.class, () -> bot.encrypt(other.id(), MESSAGE, null)).status());
    }
}
