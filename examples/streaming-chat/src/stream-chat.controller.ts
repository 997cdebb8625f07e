import type { ServerResponse } from 'node:http';
import {
  BadRequestException,
  Body,
  Controller,
  Get,
  Headers,
  Param,
  Post,
  Res,
} from '@nestjs/common';
import type { UIMessage } from 'ai';
import { StreamChatService } from './stream-chat.service';

/**
 * `POST /chat/:chatId` with `{ "message": <UIMessage> }` (the new user message only, as `useChat`
 * sends it with `prepareSendMessagesRequest`) streams the answer as the AI SDK's UI message
 * stream; `GET /chat/:chatId` returns the stored chat as `UIMessage`s (after a reload).
 */
@Controller('chat')
export class StreamChatController {
  constructor(private readonly chat: StreamChatService) {}

  @Get(':chatId')
  load(@Param('chatId') chatId: string): Promise<UIMessage[]> {
    return this.chat.load(chatId);
  }

  @Post(':chatId')
  async send(
    @Param('chatId') chatId: string,
    @Body() body: unknown,
    @Res() res: ServerResponse,
    @Headers('idempotency-key') idempotencyKey?: string,
  ): Promise<void> {
    const message = userMessageOf(body);
    // One key per request: a client that retries the same message stores it once.
    await this.chat.stream(chatId, message, res, {
      idempotencyKey: idempotencyKey ?? `ui-message:${message.id}`,
    });
  }
}

function userMessageOf(body: unknown): UIMessage {
  const message = (body as { message?: unknown } | null)?.message as Partial<UIMessage> | undefined;
  if (
    typeof message !== 'object' ||
    message === null ||
    message.role !== 'user' ||
    typeof message.id !== 'string' ||
    message.id === '' ||
    !Array.isArray(message.parts)
  ) {
    throw new BadRequestException(
      'body must be JSON { "message": { "id": "<id>", "role": "user", "parts": [...] } }',
    );
  }
  return message as UIMessage;
}
