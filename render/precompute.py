"""Write the precomputed layouts of every variant: ``python -m render.precompute``.

One JSON file per variant with its own geography in render/data/layouts/
(the standard board's variants use the hand-placed map and need none).  Run
it after changing render/autolayout.py or a variant's MDF; the tests check
that the committed files match what this computes (see render/maps.py).
"""

from __future__ import annotations

import json
import sys

from engine.variants import variant_map, variant_names
from maps import MapError
from render.autolayout import auto_layout
from render.maps import LAYOUT_DIR, uses_standard_geography


def main() -> int:
    LAYOUT_DIR.mkdir(parents=True, exist_ok=True)
    for name in variant_names():
        try:
            map_ = variant_map(name)
        except MapError as exc:
            print(f"{name}: skipped ({exc})")
            continue
        if uses_standard_geography(map_):
            continue
        layout = auto_layout(map_)
        path = LAYOUT_DIR / f"{name}.json"
        path.write_text(json.dumps(layout.to_json(), separators=(",", ":")) + "\n",
                        encoding="utf-8")
        print(f"{name}: {len(layout.provinces)} provinces -> {path.name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
