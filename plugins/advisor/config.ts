import { defineConfig } from '../../kernel/index.ts';
import { httpsUrlSetting } from '../net-support/safe-url.ts';

export const advisorConfig = defineConfig({
  advisor: {
    llm: {
      provider: { doc: 'Who narrates advisor explanations: none (nothing is sent anywhere), openai (any OpenAI-compatible chat-completions API), anthropic, ollama.', format: ['none', 'openai', 'anthropic', 'ollama'], default: 'none', env: 'SVC_ADVISOR_LLM_PROVIDER' },
      apiKey: { doc: 'API key of the provider (openai, anthropic).', format: String, default: '', env: 'SVC_ADVISOR_LLM_API_KEY', sensitive: true },
      baseUrl: httpsUrlSetting('Provider endpoint; empty: the provider\'s public default. https://, or http:// to a loopback host.', 'SVC_ADVISOR_LLM_BASE_URL'),
      model: { doc: 'Model name; empty: the provider default (gpt-4o-mini, claude-3-5-haiku-latest, llama3.1).', format: String, default: '', env: 'SVC_ADVISOR_LLM_MODEL' },
      maxTokens: { doc: 'Longest narration, in tokens.', format: 'nat', default: 512, env: 'SVC_ADVISOR_LLM_MAX_TOKENS' },
      timeoutMs: { doc: 'A narration not back after this long is given up (status failed, the bare timeline).', format: 'nat', default: 15_000, env: 'SVC_ADVISOR_LLM_TIMEOUT_MS' },
    },
  },
});
