"""A gzkit authoring guide service written with wirekit.gzkit: the worked examples' server."""

from __future__ import annotations

from wirekit.gzkit import AuthoringGuide, types

guide = AuthoringGuide()


@guide.analyze
def analyze(params: types.AnalyzeParams) -> types.AnalyzeResult:
    return {
        "hints": [
            {
                "metric": "radon_cc",
                "precedence_band": "approaching",
                "crossing_value": 9.0,
                "archetype": "arrowhead",
                "doctrinal_frame_headline": "Nesting depth approaching warn threshold",
                "recommended_move": "Flatten nested conditions using early returns",
                "file_path": params["file_path"],
                "start_line": 42,
                "end_line": 78,
            }
        ]
    }


if __name__ == "__main__":
    guide.run()
