package dev.kernelgen.codegen;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kernelgen.diag.UserError;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NativeToolchainTest {
  @TempDir Path tmp;

  @Test
  void aMissingCompilerIsNamedWithWhereItWasLookedFor() {
    NativeToolchain tc = NativeToolchain.fromEnvironment().withSearchPath(List.of(tmp));
    assertThat(tc.findCc()).isEmpty();
    assertThatThrownBy(() -> tc.compileSharedLibrary("int x;", tmp.resolve("x.so")))
        .isInstanceOf(UserError.class)
        .hasMessageContaining("C compiler not found")
        .hasMessageContaining("cc, gcc, clang")
        .hasMessageContaining(tmp.toString())
        .hasMessageContaining("NativeToolchain.withCc");
  }

  @Test
  void aMissingConfiguredNvccNamesThePath() {
    Path nvcc = tmp.resolve("bin/nvcc");
    NativeToolchain tc = NativeToolchain.fromEnvironment().withNvcc(nvcc);
    assertThatThrownBy(() -> tc.compilePtx("", "compute_90"))
        .isInstanceOf(UserError.class)
        .hasMessageContaining("CUDA compiler " + nvcc + " (configured explicitly)")
        .hasMessageContaining("NativeToolchain.withNvcc");
  }

  @Test
  void aCompileErrorQuotesTheCompilerAndKeepsTheSource() throws Exception {
    NativeToolchain tc = NativeToolchain.fromEnvironment();
    Assumptions.assumeTrue(tc.findCc().isPresent(), "no C compiler (cc, gcc, clang) on PATH");
    Throwable e =
        org.assertj.core.api.Assertions.catchThrowable(
            () ->
                tc.compileSharedLibrary(
                    "void f(void) { undeclared_thing = 1; }\n", tmp.resolve("f.so")));
    assertThat(e).isInstanceOf(UserError.class).hasMessageContaining("undeclared_thing");
    Matcher m = Pattern.compile("compiling (\\S+kernels\\.c) failed").matcher(e.getMessage());
    assertThat(m.find()).as(e.getMessage()).isTrue();
    assertThat(Files.readString(Path.of(m.group(1)))).contains("undeclared_thing");
  }

  @Test
  void rejectsMalformedCudaArchitectures() {
    assertThatThrownBy(() -> NativeToolchain.fromEnvironment().compilePtx("", "90"))
        .isInstanceOf(UserError.class)
        .hasMessageContaining("'90'");
  }
}
