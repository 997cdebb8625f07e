import {
  BadRequestException,
  Body,
  Controller,
  Headers,
  HttpCode,
  Param,
  Post,
} from '@nestjs/common';
import { AgentService, type AgentReply } from './agent.service';

/** `POST /chat/:sessionId` with `{ "message": "..." }`. */
@Controller('chat')
export class ChatController {
  constructor(private readonly agent: AgentService) {}

  @Post(':sessionId')
  @HttpCode(200)
  chat(
    @Param('sessionId') sessionId: string,
    @Body() body: unknown,
    @Headers('idempotency-key') idempotencyKey?: string,
  ): Promise<AgentReply> {
    const message = (body as { message?: unknown } | null)?.message;
    if (typeof message !== 'string' || message.trim() === '') {
      throw new BadRequestException('body must be JSON { "message": "<non-empty text>" }');
    }
    return this.agent.reply(sessionId, message, { idempotencyKey });
  }
}
