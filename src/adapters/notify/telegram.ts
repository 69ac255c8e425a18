/**
 * Telegram bots: `telegram://<bot id>:<secret>@telegram?chats=@channel,-100123[:thread]`. One
 * sendMessage per chat. Without `parsemode` the text is HTML-escaped and sent as HTML, so a title can
 * be shown in bold, as shoutrrr does.
 */
import { escapeHtml, type Markup } from '../../core/markup.js';
import { httpTarget, postJson } from './http-target.js';
import { optional } from './shape.js';
import { urlError, type NotifyMessage, type NotifyService, type NotifyTarget } from './types.js';
import { boolProp, listProp, passwordOf, prop, userOf } from './url.js';

export interface TelegramChat {
  chatId: string;
  threadId?: number;
}

export interface TelegramConfig {
  token: string;
  chats: TelegramChat[];
  parseMode: 'None' | 'HTML' | 'Markdown' | 'MarkdownV2';
  notification: boolean;
  preview: boolean;
  title?: string;
}

const PARSE_MODES = ['None', 'HTML', 'Markdown', 'MarkdownV2'] as const;

/** Values are escaped for the parse mode; `None` sends plain text, escaped whole as HTML below. */
const TELEGRAM_MARKUP: Readonly<Record<TelegramConfig['parseMode'], Markup>> = {
  None: 'plain',
  HTML: 'html',
  Markdown: 'telegram-markdown',
  MarkdownV2: 'telegram-markdownv2',
};
const CHAT = /^(@[A-Za-z0-9_]{4,}|-?\d+)(?::(\d+))?$/;

export const telegramService: NotifyService = {
  schemes: ['telegram'],
  parse(url, masked, props) {
    const token = `${userOf(url, masked)}:${passwordOf(url, masked)}`;
    if (!/^[0-9]+:[a-zA-Z0-9_-]+$/.test(token)) {
      throw urlError(
        masked,
        'the bot token must look like 123456:ABC-def',
        'telegram://<token>@telegram?chats=…',
      );
    }
    const chats = listProp(props, 'chats', 'channels').map((chat) => {
      const match = CHAT.exec(chat);
      if (!match) throw urlError(masked, `chat "${chat}" is neither @name nor a numeric chat id`);
      return {
        chatId: match[1]!,
        ...(match[2] === undefined ? {} : { threadId: Number(match[2]) }),
      };
    });
    if (chats.length === 0)
      throw urlError(masked, 'chats=… is required (comma-separated @names or ids)');
    const mode = prop(props, 'parsemode') ?? 'None';
    const parseMode = PARSE_MODES.find((m) => m.toLowerCase() === mode.toLowerCase());
    if (parseMode === undefined) {
      throw urlError(masked, `parsemode=${mode} is not one of ${PARSE_MODES.join(', ')}`);
    }
    const config: TelegramConfig = {
      token,
      chats,
      parseMode,
      notification: boolProp(props, 'notification', true, masked),
      preview: boolProp(props, 'preview', true, masked),
      ...optional({ title: prop(props, 'title') }),
    };
    return telegramTarget(config, masked);
  },
};

function telegramTarget(config: TelegramConfig, masked: string): NotifyTarget {
  return httpTarget({
    service: 'telegram',
    config,
    markup: TELEGRAM_MARKUP[config.parseMode],
    masked,
    requests: (message) =>
      config.chats.map((chat) =>
        postJson(
          `https://api.telegram.org/bot${config.token}/sendMessage`,
          telegramPayload(config, chat, message),
        ),
      ),
    recipients: () =>
      config.chats.map((chat) => telegramTarget({ ...config, chats: [chat] }, masked)),
  });
}

export function telegramPayload(
  config: TelegramConfig,
  chat: TelegramChat,
  message: NotifyMessage,
): Record<string, unknown> {
  const html = config.parseMode === 'None' || config.parseMode === 'HTML';
  const body = config.parseMode === 'None' ? escapeHtml(message.text) : message.text;
  const text =
    html && config.title !== undefined ? `<b>${escapeHtml(config.title)}</b>\n${body}` : body;
  return {
    chat_id: chat.chatId,
    text,
    parse_mode: html ? 'HTML' : config.parseMode,
    disable_web_page_preview: !config.preview,
    disable_notification: !config.notification,
    ...(chat.threadId === undefined ? {} : { message_thread_id: chat.threadId }),
  };
}
