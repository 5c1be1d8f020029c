package com.example.classloading;

/** {@code sensor-a: 2 readings, 3 kWh}. */
public class PlainReport implements Report {

  @Override
  public String line(SensorTotal total, String unit) {
    return total.sensor + ": " + total.count + " readings, " + total.sum + " " + unit;
  }
}
