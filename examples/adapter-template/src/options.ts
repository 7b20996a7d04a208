/**
 * The adapter's options: one TypeBox schema, snake_case keys like every vmhub config key, each
 * documented with its default. Operators set them under `adapters.example` in the vmhub config,
 * or per template in `adapter_options`; defineAdapter validates them and fills the defaults
 * before create() sees them, so nothing here re-checks.
 */
import { Type, type Static } from '@vmhub/core';

export const ExampleOptionsSchema = Type.Object({
  /** The X display the desktop runs on, passed as DISPLAY to every X tool. Default ":0". */
  display: Type.String({ pattern: '^:[0-9]+(\\.[0-9]+)?$', default: ':0' }),
  /** Pause between typed characters, in ms (slow apps drop keys typed faster). Default 12. */
  type_delay_ms: Type.Integer({ minimum: 0, maximum: 200, default: 12 }),
}, { additionalProperties: false });

export type ExampleOptions = Static<typeof ExampleOptionsSchema>;
