"""How many containers a mail declares (a multipart boundary, a `message/` part), counted only as far as a bound
(pure; suite5).

Both readings of a mail bound the containers before the standard library's parser recurses into them: the poll's
(`pbem.mail.inbound.message.too_nested`, `MAX_MULTIPARTS`) and `pbem verify --mail`'s (`pbem.trust.addresses.too_nested`,
`MAX_NESTED`), which the layers keep apart, so the count lives here as `params` does.  It was a search of the whole
mail for `boundary\\s*=|content-type\\s*:\\s*message/` ignoring case: no literal prefix, so `re` tried both
alternatives at every byte, about 16 microseconds a KB (0.35 ms for a report of 21 KB; `verify --mail` reads each mail
of a player's folder several times, 14% of a Sixteen Thirty player's check).  Here the mail is lowered once (ASCII, as
the pattern's IGNORECASE on bytes is) and the two words counted first, which `bytes.count` does in C: every match
starts with one of them and no two matches share one (neither word overlaps itself), so a mail holding at most `most`
of them declares at most `most` containers.  Only a mail holding more is searched, with the same pattern in lower
case: the same matches at the same places.  `tests/test_containers.py` holds it to the case-blind search.
"""

from __future__ import annotations

import re
from itertools import islice

#: The start of a container's declaration, as the lowered mail holds it.
CONTAINER = re.compile(rb"boundary\s*+\*?\s*+=|content-type\s*+:\s*+message/")


def more_than(raw: bytes, most: int) -> bool:
    """Whether `raw` declares more than `most` containers: as many matches of `CONTAINER`, case ignored."""
    low = raw.lower()
    if low.count(b"boundary") + low.count(b"content-type") <= most:
        return False
    return next(islice(CONTAINER.finditer(low), most, None), None) is not None
