"""Rate limits shared by the service, the Telegram edge and the web table: a sliding window of
requests and per-user token buckets. Pure asyncio; imports nothing else of the bot."""
