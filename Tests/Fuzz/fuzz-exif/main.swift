// libFuzzer target: the EXIF orientation reader (scripts/fuzz.sh).
import DecoderFuzzing

DecoderFuzzing.run { DecoderFuzzing.orientation($0, $1) }
