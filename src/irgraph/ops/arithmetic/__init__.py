"""Ops of OpenVINO's 'arithmetic' spec category."""
