import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsNotEmpty, IsObject, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { IsOptionalNotNull } from '../common/validators';

/** A remote or a package of a catalog entry, to register as a server. */
export class FromCatalogDto {
  @ApiProperty({ description: 'The catalog entry name', example: 'io.github.user/remote-weather', maxLength: 200 })
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  name!: string;

  @ApiPropertyOptional({ description: 'The entry version (default: its latest)', example: '2.1.0', maxLength: 255 })
  @IsOptionalNotNull()
  @IsString()
  @IsNotEmpty()
  @MaxLength(255)
  version?: string;

  @ApiPropertyOptional({ description: 'Index in the entry\'s remotes[] (default 0 when no package is named)', minimum: 0 })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(99)
  remote?: number;

  @ApiPropertyOptional({ description: "Index in the entry's packages[] (admin only: packages run as stdio BUILT_IN servers)", minimum: 0 })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(99)
  package?: number;

  @ApiPropertyOptional({
    description:
      'The declared inputs by name: URL template variables, header names, environment variable names, named arguments (`--port`) and ' +
      "positional arguments' valueHint; a list for a repeated argument. Secret ones are stored write-only.",
    type: 'object',
    additionalProperties: { oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }] },
    example: { host: 'weather.example.com', Authorization: 'Bearer <token>' },
  })
  @IsOptionalNotNull()
  @IsObject()
  inputs?: Record<string, string | string[]>;
}
