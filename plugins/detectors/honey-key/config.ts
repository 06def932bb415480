import { Type } from '@sinclair/typebox';
import { defineSettings } from '../../../kernel/index.ts';

export const honeyKeySettings = defineSettings(
  Type.Object({
    honeyKeys: Type.String({ description: 'Comma-separated honey key ids (UUIDs).', default: '' }),
  }),
);
