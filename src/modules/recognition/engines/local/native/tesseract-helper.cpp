// A long-lived tesseract for one recognition thread (native-ocr.ts): the model is loaded once, then
// each request is read from stdin and answered on stdout, one at a time.
//
// Request:  u32 psm, u32 whitelist bytes, u32 image bytes (little-endian), the whitelist, the image
//           (any format leptonica reads; the recognizer sends PGM).
// Response: u32 bytes, then that many bytes of text: one row per text line and per word,
//           "L" or "W", confidence, x0, y0, x1, y1, text, tab-separated, a word's row after its line's.
// Anything unexpected ends the process with a message on stderr; the parent starts another.
#include <tesseract/baseapi.h>
#include <tesseract/resultiterator.h>
#include <leptonica/allheaders.h>
#include <dlfcn.h>
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

static bool readAll(void *buf, size_t n) {
  return n == 0 || fread(buf, 1, n, stdin) == n;
}

static void writeRow(std::string &out, const char *kind, tesseract::ResultIterator *it,
                     tesseract::PageIteratorLevel level) {
  std::unique_ptr<char[]> text(it->GetUTF8Text(level));
  if (!text) return;
  std::string t(text.get());
  while (!t.empty() && (t.back() == '\n' || t.back() == ' ')) t.pop_back();
  for (char &c : t)
    if (c == '\t' || c == '\n') c = ' ';
  int x0, y0, x1, y1;
  if (!it->BoundingBox(level, &x0, &y0, &x1, &y1)) return;
  char head[96];
  snprintf(head, sizeof head, "%s\t%.4f\t%d\t%d\t%d\t%d\t", kind, it->Confidence(level), x0, y0, x1, y1);
  out += head;
  out += t;
  out += '\n';
}

// libtesseract hands each word's image to its LSTM through an in-memory PNG (ImageData::SetPixInternal
// writes it, PreScale reads it back), which libpng filters and zlib compresses at its default level:
// about a tenth of this process's time on a shelf photo's sheets, for bytes thrown away at once. This
// definition stands in for libpng's (the executable's symbols come first in the dynamic lookup), and
// asks for stored, unfiltered data instead: PNG is lossless, so the word image read back is the same.
// Nothing else here writes a PNG.
extern "C" __attribute__((visibility("default"))) void png_set_compression_level(void *png, int) {
  using Setter = void (*)(void *, int);
  using Filter = void (*)(void *, int, int);
  static Setter real = reinterpret_cast<Setter>(dlsym(RTLD_NEXT, "png_set_compression_level"));
  static Filter filter = reinterpret_cast<Filter>(dlsym(RTLD_DEFAULT, "png_set_filter"));
  if (real) real(png, 0);            // Z_NO_COMPRESSION
  if (filter) filter(png, 0, 0x08);  // PNG_FILTER_TYPE_BASE, PNG_FILTER_NONE
}

// libtesseract is built with OpenMP (Debian's is): its LSTM starts a parallel region of four sections
// (the gates) at every time step of every line, and other layers a parallel loop. This process reads
// on one thread by design (OMP_THREAD_LIMIT=1: the recognition pool runs one helper a core), so each
// region is a team of one, whose start and end in libgomp cost about a fifth of the process's
// time. These definitions stand in for libgomp's entry points that libtesseract calls (the whole
// list: `objdump -T libtesseract.so.5 | grep GOMP`) and run the region's body here, as a team of one
// runs it: a loop's body asks omp_get_num_threads() (1 outside a region) for its share, and a
// sections body asks GOMP_sections_next() for each section in turn.
namespace {
thread_local unsigned sectionsLeft = 0;  // sections of the region being run here not yet handed out
thread_local unsigned sectionsCount = 0;
thread_local bool inSections = false;
}  // namespace

extern "C" __attribute__((visibility("default"))) void GOMP_parallel(void (*fn)(void *), void *data, unsigned,
                                                                     unsigned) {
  fn(data);
}

extern "C" __attribute__((visibility("default"))) void GOMP_parallel_sections(void (*fn)(void *), void *data,
                                                                              unsigned, unsigned count, unsigned) {
  // A region inside a section (none in libtesseract 5.3) keeps the outer one's place.
  const unsigned left = sectionsLeft, total = sectionsCount;
  const bool outer = inSections;
  sectionsLeft = sectionsCount = count;
  inSections = true;
  fn(data);
  sectionsLeft = left;
  sectionsCount = total;
  inSections = outer;
}

extern "C" __attribute__((visibility("default"))) unsigned GOMP_sections_next() {
  if (!inSections) {
    using Next = unsigned (*)();
    static Next real = reinterpret_cast<Next>(dlsym(RTLD_NEXT, "GOMP_sections_next"));
    return real ? real() : 0;
  }
  // Sections are numbered from 1; 0 says none is left.
  if (sectionsLeft == 0) return 0;
  return sectionsCount - --sectionsLeft;
}

extern "C" __attribute__((visibility("default"))) void GOMP_sections_end_nowait() {
  if (inSections) return;
  using End = void (*)();
  static End real = reinterpret_cast<End>(dlsym(RTLD_NEXT, "GOMP_sections_end_nowait"));
  if (real) real();
}

// A binary PGM ("P5", 8 bits) as the recognizer sends it: leptonica's reader takes such a file a byte
// at a time through fread (about a twelfth of this process's time on a photo's sheets), so the pixels
// are handed to tesseract as they are. Anything else goes through pixReadMem. Returns whether it took it.
static bool setPgm(tesseract::TessBaseAPI &api, const std::vector<unsigned char> &image) {
  int width = 0, height = 0, maxval = 0, used = 0;
  const std::string head(reinterpret_cast<const char *>(image.data()), std::min<size_t>(image.size(), 64));
  if (sscanf(head.c_str(), "P5 %d %d %d%n", &width, &height, &maxval, &used) != 3 || maxval != 255) return false;
  // One whitespace byte ends the header; the pixels follow.
  const size_t start = static_cast<size_t>(used) + 1;
  if (width <= 0 || height <= 0 || image.size() < start + static_cast<size_t>(width) * height) return false;
  api.SetImage(image.data() + start, width, height, 1, width);
  return true;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: tesseract-helper <tessdata dir> <language>\n");
    return 2;
  }
  tesseract::TessBaseAPI api;
  // The word lists stay unloaded, as in the wasm engine: shelf text is brands, sizes and prices.
  std::vector<std::string> names{"load_system_dawg", "load_freq_dawg"};
  std::vector<std::string> values{"0", "0"};
  if (api.Init(argv[1], argv[2], tesseract::OEM_LSTM_ONLY, nullptr, 0, &names, &values, false) != 0) {
    fprintf(stderr, "tesseract-helper: could not load %s from %s\n", argv[2], argv[1]);
    return 3;
  }
  api.SetVariable("preserve_interword_spaces", "1");
  for (int i = 3; i < argc; i++) {
    std::string kv(argv[i]);
    size_t eq = kv.find('=');
    if (eq == std::string::npos || !api.SetVariable(kv.substr(0, eq).c_str(), kv.substr(eq + 1).c_str())) {
      fprintf(stderr, "tesseract-helper: not a variable: %s\n", argv[i]);
      return 2;
    }
  }
  for (;;) {
    uint32_t head[3];
    if (fread(head, 4, 3, stdin) != 3) return 0;  // the parent closed our stdin: done
    std::string whitelist(head[1], '\0');
    std::vector<unsigned char> image(head[2]);
    if (!readAll(whitelist.data(), whitelist.size()) || !readAll(image.data(), image.size())) return 4;
    std::string out;
    Pix *pix = nullptr;
    const bool raw = setPgm(api, image);
    if (!raw) pix = pixReadMem(image.data(), image.size());
    if (raw || pix) {
      if (pix) api.SetImage(pix);
      api.SetPageSegMode(static_cast<tesseract::PageSegMode>(head[0]));
      api.SetVariable("tessedit_char_whitelist", whitelist.c_str());
      if (api.Recognize(nullptr) == 0) {
        std::unique_ptr<tesseract::ResultIterator> it(api.GetIterator());
        if (it && !it->Empty(tesseract::RIL_TEXTLINE)) {
          do {
            if (it->IsAtBeginningOf(tesseract::RIL_TEXTLINE)) writeRow(out, "L", it.get(), tesseract::RIL_TEXTLINE);
            writeRow(out, "W", it.get(), tesseract::RIL_WORD);
          } while (it->Next(tesseract::RIL_WORD));
        }
      }
      api.Clear();
      if (pix) pixDestroy(&pix);
    } else {
      out = "E\tunreadable image\n";
    }
    uint32_t n = static_cast<uint32_t>(out.size());
    if (fwrite(&n, 4, 1, stdout) != 1 || fwrite(out.data(), 1, n, stdout) != n || fflush(stdout) != 0) return 5;
  }
}
