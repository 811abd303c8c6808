package dev.kernelgen.autosched;

import dev.kernelgen.schedule.Stage;

/** Knob names of generated schedules: the stage's name made an identifier, a dot, the knob. */
final class KnobNames {
  private KnobNames() {}

  static String of(Stage st, String knob) {
    String n = st.name().replaceAll("[^A-Za-z0-9_]", "_");
    if (!Character.isLetter(n.charAt(0)) && n.charAt(0) != '_') {
      n = "_" + n;
    }
    return n + "." + knob;
  }
}
