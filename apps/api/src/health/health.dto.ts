import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

export class LivenessDto {
  @ApiProperty({ description: 'Always "ok" while the process serves requests', example: 'ok' })
  status!: string;
}

export class ReadinessChecksDto {
  @ApiProperty({ description: 'The database answers', example: 'up', enum: ['up', 'down'] })
  database!: string;

  @ApiProperty({ description: 'The job queue answers', example: 'up', enum: ['up', 'down'] })
  queue!: string;

  @ApiPropertyOptional({
    description: 'The tool catalog (what search and calls use) has been loaded since the process started',
    example: 'loaded',
    enum: ['loaded', 'loading'],
  })
  toolCatalog?: string;
}

export class ReadinessDto {
  @ApiProperty({ description: '"ok" when every dependency answers, else "unavailable"', example: 'ok' })
  status!: string;

  @ApiProperty({ description: 'Per dependency', type: ReadinessChecksDto })
  checks!: ReadinessChecksDto;

  @ApiProperty({ description: 'Where the queue lives', enum: ['redis', 'postgres'] })
  queueBackend!: string;

  @ApiProperty({ description: 'Whether the database is the embedded one', example: false })
  embeddedDatabase!: boolean;
}
