package dev.svckms.client;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The key model's calls: aliases, tags, the reversible disable, key-scoped agents and the role-based
 * policy. {@link SvcClient} extends this class, so they are methods of every client; they live apart
 * from SvcClient.java only to keep each file to one concern. Wherever a key id is taken, an alias
 * ({@code alias/NAME}) is taken too. Only listAliases and getPolicy are retried: the others change state.
 */
public abstract class KeyModelCalls {
    final HttpTransport http;

    // Package-private: extended only by AccessKeyCalls, and so by SvcClient, which builds the transport.
    KeyModelCalls(HttpTransport http) {
        this.http = http;
    }

    // Aliases

    /**
     * Points {@code alias/NAME} at a key: creates the alias, or moves it from the key it names
     * ({@code previousKeyId()} of the answer). With {@code createOnly} an alias that exists is a 409
     * IllegalOperation instead of a move.
     */
    public Alias putAlias(String name, String keyId, boolean createOnly) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("keyId", keyId);
        if (createOnly) body.put("createOnly", true);
        return http.send("PUT", alias(name), null, body, false, Alias.class);
    }

    /** Deletes an alias (the key it named is unchanged); the answer names that key. NotFound when it names none. */
    public Alias deleteAlias(String name) {
        return http.send("DELETE", alias(name), null, null, false, Alias.class);
    }

    /**
     * One page of aliases by name: those of {@code keyId} (null: every key's), from {@code after} (null: the
     * first; else the {@code nextAfter} of the page before), at most {@code limit} (null: 100). Only aliases of
     * keys the caller may read.
     */
    public AliasPage listAliases(String keyId, String after, Integer limit) {
        Map<String, String> query = new LinkedHashMap<>();
        if (keyId != null) query.put("keyId", keyId);
        if (after != null) query.put("after", after);
        if (limit != null) query.put("limit", limit.toString());
        return http.send("GET", "/v1/aliases", query, null, true, AliasPage.class);
    }

    /** Every alias of {@code keyId} (null: of every key), page after page while the service answers nextAfter. */
    public List<Alias> listAllAliases(String keyId) {
        List<Alias> all = new ArrayList<>();
        for (String after = null; ; ) {
            AliasPage page = listAliases(keyId, after, 1000);
            all.addAll(page.aliases());
            if (!page.hasMore()) return all;
            after = page.nextAfter();
        }
    }

    // Tags and the reversible disable

    /** Sets tags on a key, merged over the ones it has (a tag key given again takes the new value). */
    public KeyTags tagKey(String id, Map<String, String> tags) {
        return http.send("PUT", key(id, "/tags"), null, Map.of("tags", tags), false, KeyTags.class);
    }

    /** Removes the named tags (names the key does not carry are ignored); answers the tags left. */
    public KeyTags untagKey(String id, List<String> tagKeys) {
        for (String name : tagKeys) {
            // The names travel comma-separated: an element holding a comma (which no tag key may) would name two tags.
            if (name.contains(",")) {
                String why = "\"" + name + "\" is no tag key: no tag key holds a comma (the list's separator)";
                throw new SvcApiException("InvalidField", 0, why, "");
            }
        }
        Map<String, String> query = Map.of("keys", String.join(",", tagKeys));
        return http.send("DELETE", key(id, "/tags"), query, null, false, KeyTags.class);
    }

    /**
     * Pauses a key: it keeps its state, but every cryptographic call, public key and export is refused until
     * a Human enables it. {@code reason} may be null. Disabling a disabled key changes nothing.
     */
    public KeyEnabled disableKey(String id, String reason) {
        Map<String, String> body = reason == null ? Map.of() : Map.of("reason", reason);
        return http.send("POST", key(id, "/disable"), null, body, false, KeyEnabled.class);
    }

    /** Lifts the pause; Human callers only (a paused agent or service must not lift its own). */
    public KeyEnabled enableKey(String id) {
        return http.send("POST", key(id, "/enable"), null, null, false, KeyEnabled.class);
    }

    /**
     * An agent limited to the keys {@code keys} names ({@code id:UUID}, {@code name:GLOB}, {@code owner:self},
     * {@code alias:NAME}), on top of its scopes and its parent's rights.
     */
    public IssuedAgent issueAgent(String label, List<String> scopes, int ttlSeconds, List<String> keys) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("label", label);
        body.put("scopes", scopes);
        body.put("ttlSeconds", ttlSeconds);
        if (keys != null) body.put("keys", keys);
        return http.send("POST", "/v1/agents/issue", null, body, false, IssuedAgent.class);
    }

    // The role-based policy

    /** The latest stored version of the bindings, with the ETag putPolicy needs. */
    public Policy getPolicy() {
        return http.send("GET", "/v1/policy", null, null, true, Policy.class);
    }

    /**
     * Replaces both binding maps as the next version (Human callers only), if {@code etag} still names the
     * latest one: a 412 PreconditionFailed when another change came first, 400 InvalidField naming every bad
     * binding. Never retried: a retry of a stored PUT would be a 412.
     */
    public Policy putPolicy(PolicyDocument document, String etag) {
        return http.send("PUT", "/v1/policy", null, document, Map.of("If-Match", etag), false, Policy.class);
    }

    private static String key(String id, String rest) {
        return "/v1/keys/" + segment(id) + rest;
    }

    // An alias's slash travels encoded (alias%2FNAME): the service reads the name from one path segment.
    private static String alias(String name) {
        return "/v1/aliases/" + segment(name);
    }

    private static String segment(String text) {
        return URLEncoder.encode(text, StandardCharsets.UTF_8).replace("+", "%20");
    }

}
