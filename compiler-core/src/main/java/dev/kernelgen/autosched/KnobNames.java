package dev.kernelgen.autosched;

import dev.kernelgen.schedule.Stage;
import java.util.regex.Pattern;

/** Knob names of generated schedules: the stage's name made an identifier, a dot, the knob. */
final class KnobNames {
  private KnobNames() {}

  private static final Pattern NOT_IDENTIFIER = Pattern.compile("[^A-Za-z0-9_]");

  static String of(Stage st, String knob) {
    String n = NOT_IDENTIFIER.matcher(st.name()).replaceAll("_");
    if (!Character.isLetter(n.charAt(0)) && n.charAt(0) != '_') {
      n = "_" + n;
    }
    return n + "." + knob;
  }
}
