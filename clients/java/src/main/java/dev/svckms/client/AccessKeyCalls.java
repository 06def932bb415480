package dev.svckms.client;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Access keys: the credentials AWS SDKs and the AWS CLI sign requests with (Signature Version 4), made, listed
 * and deleted by Humans. {@link SvcClient} extends this class, so these are methods of every client; they live
 * apart from SvcClient.java only to keep each file to one concern. Only listAccessKeys is retried.
 */
public abstract class AccessKeyCalls extends KeyModelCalls {

    // Package-private: the only subclass is SvcClient, which builds the transport.
    AccessKeyCalls(HttpTransport http) {
        super(http);
    }

    /**
     * A new access key for the calling Human, or, with {@code service} (null: yourself), for that Service. The
     * answer's {@code secretAccessKey()} is shown this once: the service keeps it only sealed. A 409
     * IllegalOperation when the principal already holds 10. Never retried (a retry would make a second key).
     */
    public NewAccessKey createAccessKey(String service) {
        Map<String, Object> body = service == null ? Map.of() : Map.of("service", service);
        return http.send("POST", "/v1/access-keys", null, body, false, NewAccessKey.class);
    }

    /**
     * One page of access keys by id, never a secret: those of the subject {@code principal} (null: every key's),
     * from {@code after} (null: the first; else the {@code nextAfter} of the page before), at most {@code limit}
     * (null: 100).
     */
    public AccessKeyPage listAccessKeys(String principal, String after, Integer limit) {
        Map<String, String> query = new LinkedHashMap<>();
        if (principal != null) query.put("principal", principal);
        if (after != null) query.put("after", after);
        if (limit != null) query.put("limit", limit.toString());
        return http.send("GET", "/v1/access-keys", query, null, true, AccessKeyPage.class);
    }

    /** Every access key of {@code principal} (null: every key), page after page while the service answers nextAfter. */
    public List<AccessKey> listAllAccessKeys(String principal) {
        List<AccessKey> all = new ArrayList<>();
        for (String after = null; ; ) {
            AccessKeyPage page = listAccessKeys(principal, after, 1000);
            all.addAll(page.accessKeys());
            if (!page.hasMore()) return all;
            after = page.nextAfter();
        }
    }

    /** Deletes an access key: requests signed with it are refused from the next one on. A 404 NotFound for an unknown id. */
    public DeletedAccessKey deleteAccessKey(String accessKeyId) {
        String path = "/v1/access-keys/" + URLEncoder.encode(accessKeyId, StandardCharsets.UTF_8).replace("+", "%20");
        return http.send("DELETE", path, null, null, false, DeletedAccessKey.class);
    }
}
