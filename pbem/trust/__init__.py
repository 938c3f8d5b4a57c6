"""Why players can trust a game: seeds and their commitment, the chained record, player codes, the fair deal, receipts and `pbem verify`."""
