import { Type } from '@sinclair/typebox';
import { defineSettings } from '../../kernel/index.ts';
import { outboundUrlSetting } from '../net-support/safe-url.ts';

export const advisorSettings = defineSettings(
  Type.Object({
    advisor: Type.Object({
      llm: Type.Object({
        provider: Type.Union(
          [Type.Literal('none'), Type.Literal('openai'), Type.Literal('anthropic'), Type.Literal('ollama')],
          {
            description:
              'Who narrates advisor explanations: none (nothing is sent anywhere), ' +
              'openai (any OpenAI-compatible chat-completions API), anthropic, ollama.',
            default: 'none',
          },
        ),
        apiKey: Type.String({
          description: 'API key of the provider (openai, anthropic).',
          default: '',
          sensitive: true,
        }),
        baseUrl: outboundUrlSetting(
          "Provider endpoint; empty: the provider's public default. https://, or http:// to a loopback host.",
        ),
        model: Type.String({
          description: 'Model name; empty: the provider default (gpt-4o-mini, claude-3-5-haiku-latest, llama3.1).',
          default: '',
        }),
        maxTokens: Type.Integer({ minimum: 0, description: 'Longest narration, in tokens.', default: 512 }),
        timeoutMs: Type.Integer({
          minimum: 0,
          description: 'A narration not back after this long is given up (status failed, the bare timeline).',
          default: 15_000,
        }),
      }),
    }),
  }),
);
