import { Type as Class } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';

/** A property documented by its description and an example; the example's type (text or number) is the property's. */
export type ExampledField = readonly [description: string, example: string | number];

/** The TypeScript type of the properties DocumentedFields makes. */
type FieldsOf<P extends Record<string, ExampledField>> = { [K in keyof P]: P[K][1] extends number ? number : string };

/**
 * The base of a DTO whose properties are required texts and numbers, each with a description and an example, in
 * the order given: `export class ProblemLimit extends DocumentedFields({ value: ['Its value', 200] }) {}`. The DTO
 * that extends it keeps its own schema name (as with PageOf) and may add properties of its own after these.
 */
export function DocumentedFields<P extends Record<string, ExampledField>>(fields: P): Class<FieldsOf<P>> {
  class Fields {}
  for (const [name, [description, example]] of Object.entries(fields)) {
    // Applied by hand, so with no design type to read: the type is said.
    ApiProperty({ description, example, type: typeof example === 'number' ? Number : String })(Fields.prototype, name);
  }
  return Fields as Class<FieldsOf<P>>;
}

/** A text that may be null (the description says what null means). */
export const NullableText = (description: string): PropertyDecorator => ApiProperty({ description, nullable: true, type: String });

/** A number that may be null (the description says what null means). */
export const NullableNumber = (description: string): PropertyDecorator => ApiProperty({ description, nullable: true, type: Number });

/** A list of texts: names, ids. */
export const TextList = (description: string): PropertyDecorator => ApiProperty({ description, type: [String] });

/** An object of texts by name: labels, headers. */
export const TextMap = (description: string): PropertyDecorator => ApiProperty({ description, type: 'object', additionalProperties: { type: 'string' } });

/** A JSON object, whatever its fields. */
export const JsonObject = (description: string): PropertyDecorator => ApiProperty({ description, type: 'object', additionalProperties: true });
