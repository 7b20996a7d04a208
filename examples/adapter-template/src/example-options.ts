/** The adapter's options: one TypeBox schema, snake_case keys like every vmhub config key, every field documented with its default. */
import { Type, type Static } from '@vmhub/core';

export const ExampleOptionsSchema = Type.Object({
  /** Largest stdout/stderr kept per exec, in bytes. Default 262144 (256 KiB). */
  max_output_bytes: Type.Integer({ minimum: 1024, default: 262144 }),
  /** Environment variables added to every exec. Default none. */
  env: Type.Record(Type.String(), Type.String(), { default: {} }),
}, { additionalProperties: false });

export type ExampleOptions = Static<typeof ExampleOptionsSchema>;
